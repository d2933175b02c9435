"""The candidate positions of a positions file, for look-ahead labels at 2 plies.

``positions.py --alternatives K`` keeps, with each sampled position, the positions after
the K best plays of its roll and one random play (``role >= 1``): the candidates one 0-ply
decision compares. A net plays well when it ranks such candidates as a deeper search
does, so these are the positions worth the expensive 2-ply labels
(``lookahead.py --plies 2``) and the ranking loss of ``train.py --rank``. This script
writes a positions file (same arrays, plus ``source``: the row in the input file) with
the candidates of every decision that has at least two of them, in game order, so that
labelling its chunks in order gives whole decisions.

Usage::

    python experiments/evaluator/candidates.py --positions RUNS/positions_g9.npz \\
        --out RUNS/positions_g9c
    python experiments/evaluator/candidates.py --positions RUNS/positions_g9b.npz \\
        --race-decisions --out RUNS/positions_g9r

``--race-decisions`` keeps only the decisions with at least one race candidate (a race,
or a contact position whose play can break contact), all their candidates: the race
net's 2-ply set of generation 9. ``--crashed-decisions`` keeps those with at least one
crashed contact candidate (``fastbg.reference.features.is_crashed``: a side with at most 7 checkers in play),
where the contact net is furthest from GNU Backgammon's 0-ply play. ``--contact-decisions``
keeps those with at least two contact candidates that are not crashed: the contact net's.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np



def candidate_rows(pos) -> np.ndarray:
    """Rows of the candidates of decisions with at least two candidates, in file order."""
    role, game, ply = pos["role"], pos["game"].astype(np.int64), pos["ply"].astype(np.int64)
    key = np.where(role >= 1, game * 100000 + ply, -1)
    _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    return np.flatnonzero((key >= 0) & (cnt[inv] >= 2))


def race_decision_rows(pos, rows: np.ndarray) -> np.ndarray:
    """Those of ``rows`` (candidate rows) whose decision has at least one race candidate."""
    from fastbg._core.features import position_class

    race = np.array([position_class(b) == "race" for b in pos["boards"][rows]], dtype=bool)
    key = pos["game"][rows].astype(np.int64) * 100000 + pos["ply"][rows].astype(np.int64)
    return rows[np.isin(key, key[race])]


def crashed_decision_rows(pos, rows: np.ndarray) -> np.ndarray:
    """Those of ``rows`` (candidate rows) whose decision has at least one crashed contact
    candidate."""
    from fastbg._core.features import is_crashed, position_class

    b = pos["boards"][rows]
    contact = np.array([position_class(x) == "contact" for x in b], dtype=bool)
    crashed = contact & is_crashed(b)
    key = pos["game"][rows].astype(np.int64) * 100000 + pos["ply"][rows].astype(np.int64)
    return rows[np.isin(key, key[crashed])]


def contact_decision_rows(pos, rows: np.ndarray) -> np.ndarray:
    """Those of ``rows`` (candidate rows) whose decision has at least two contact candidates
    that are not crashed: the decisions the contact net (``train.py --no-crashed``) ranks."""
    from fastbg._core.features import is_crashed, position_class
    b = pos["boards"][rows]
    contact = np.array([position_class(x) == "contact" for x in b], dtype=bool)
    ok = contact & ~is_crashed(b)
    key = pos["game"][rows].astype(np.int64) * 100000 + pos["ply"][rows].astype(np.int64)
    _, inv = np.unique(key, return_inverse=True)
    n_ok = np.bincount(inv, weights=ok.astype(float))
    return rows[n_ok[inv] >= 2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", required=True)
    ap.add_argument("--out", required=True, help="output path without .npz")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--race-decisions", action="store_true",
                       help="only the decisions with at least one race candidate")
    which.add_argument("--crashed-decisions", action="store_true",
                       help="only the decisions with at least one crashed contact candidate")
    which.add_argument("--contact-decisions", action="store_true",
                       help="only the decisions with at least two contact candidates that are "
                            "not crashed")
    args = ap.parse_args(argv)
    pos = np.load(args.positions)
    if "role" not in pos.files:
        raise SystemExit(f"{args.positions} has no 'role' array: make it with this "
                         "version of positions.py")
    rows = candidate_rows(pos)
    extra = {}
    if args.race_decisions:
        rows = race_decision_rows(pos, rows)
        extra = {"race_decisions": True}
    elif args.crashed_decisions:
        rows = crashed_decision_rows(pos, rows)
        extra = {"crashed_decisions": True}
    elif args.contact_decisions:
        rows = contact_decision_rows(pos, rows)
        extra = {"contact_decisions": True}
    out = {k: pos[k][rows] for k in ("boards", "kind", "game", "ply", "role")}
    np.savez_compressed(Path(args.out).with_suffix(".npz"), **out, source=rows.astype(np.int64),
                        args=json.dumps({**json.loads(str(pos["args"])), "candidates_of": args.positions,
                                     **extra}))
    print(f"{len(rows)} candidates of {len(pos['boards'])} positions -> {args.out}.npz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
