"""Rollout labels for training positions: fastbg's own engine, never GNU Backgammon.

Step 5 of the recipe (issue 11's EVALUATOR.md, summarised in ``experiments/TRAINING.md``): each position is rolled out by the
compiled engine with a policy (default the shipped ``nn``), and its label is the outcome
counts (win single/gammon/backgammon, lose single/gammon/backgammon), from which the five
probabilities follow. The first roll is stratified: for each of the 21 distinct rolls,
``--per-roll`` games start with it per way of rolling it (1 for a double, 2 for the
others), so ``36 * per_roll`` games in all whose first rolls are exactly the 36 rolls'
proportions (a stratified sample: unbiased, and the first roll's luck, the largest single
term, no longer adds noise). Later rolls are random.

Work is cut into shards of ``--shard`` positions, taken in a seeded random order of the
position file (so the first shards are a random sample of it); each finished shard is
written at once to ``<out>/shard_<k>.npz`` (``index``: rows of the position file,
``counts``: (n, 6) int32), so a run stopped at any moment loses at most the shard in
progress, and re-running the same command resumes. Game ``j`` of roll ``r`` of position
``i`` draws from ``PCG64DXSM(SeedSequence(seed, spawn_key=(i, r)))``: a label depends only
on (seed, position, policy, per-roll), not on shards or order.

``--vr`` labels by fastbg's variance-reduced rollout instead (:func:`fastbg.rollout`,
``vr=True``: luck-adjusted outcomes, the first roll stratified, quasi-random dice) of
``36 * per_roll`` games, seeded by ``--seed`` alone: every position plays the same dice
(common random numbers), so the noise of the candidates of one decision is correlated
and their differences are sharper than their values. A shard then also holds ``probs``
(n, 5) float32, the luck-adjusted probabilities, which ``train.py`` takes as targets.
``--only crashed`` labels the crashed contact rows only
(:func:`fastbg.reference.features.is_crashed`), and shards then follow a random order of
the decisions (all the labelled candidates of a decision together), so a partial run
feeds the ranking losses whole decisions.

Usage::

    nice -n 19 python experiments/evaluator/labels.py \\
        --positions experiments/runs/evaluator/positions_g1.npz \\
        --out experiments/runs/evaluator/labels_g1 --per-roll 6 --seed 1
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from fastbg.engine import get_engine

#: The 21 distinct rolls and how many of the 36 ordered rolls each stands for.
ROLLS = tuple((d1, d2, 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))


def label(eng, policy, board: np.ndarray, index: int, seed: int, per_roll: int) -> np.ndarray:
    """Outcome counts of ``36 * per_roll`` games from ``board``, first roll stratified."""
    counts = np.zeros(6, dtype=np.int64)
    for r, (d1, d2, ways) in enumerate(ROLLS):
        bg = np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=(index, r)))
        counts += eng.rollout_block(board, ways * per_roll, bg, policy, dice=(d1, d2))
    return counts


def vr_label(board: np.ndarray, policy: str, seed: int, per_roll: int):
    """Raw outcome counts (6,) and luck-adjusted probabilities (5,) of a variance-reduced
    rollout of ``36 * per_roll`` games from ``board`` (:func:`fastbg.rollout`, one worker)."""
    import fastbg
    r = fastbg.rollout(np.ascontiguousarray(board), games=36 * per_roll, seed=seed, workers=1,
                       policy=policy, vr=True)
    probs = consistent(np.array([[r.win, r.win_gammon, r.win_backgammon, r.lose_gammon,
                                  r.lose_backgammon]]))[0]   # luck adjustment can break them
    return np.asarray(r.counts, dtype=np.int64).reshape(-1)[:6], probs


def consistent(p: np.ndarray) -> np.ndarray:
    """Probabilities (n, 5) clipped to [0, 1] with gammons within wins and losses."""
    p = np.clip(p, 0.0, 1.0)
    p[:, 1] = np.minimum(p[:, 1], p[:, 0])
    p[:, 2] = np.minimum(p[:, 2], p[:, 1])
    p[:, 3] = np.minimum(p[:, 3], 1.0 - p[:, 0])
    p[:, 4] = np.minimum(p[:, 4], p[:, 3])
    return p


def crashed_decision_order(pos, seed: int) -> np.ndarray:
    """Rows of the crashed contact positions of a positions file, decision by decision
    (rows of one game and ply together) in a seeded random order of the decisions."""
    from fastbg.reference.features import is_crashed, position_class
    boards = pos["boards"]
    rows = np.flatnonzero(is_crashed(boards)
                          & np.array([position_class(b) == "contact" for b in boards]))
    return decision_order(pos, rows, seed)


def decision_order(pos, rows: np.ndarray, seed: int) -> np.ndarray:
    """``rows`` of a positions file decision by decision (rows of one game and ply
    together) in a seeded random order of the decisions."""
    key = pos["game"][rows].astype(np.int64) * 100000 + pos["ply"][rows]
    _, unit = np.unique(key, return_inverse=True)
    rank = np.random.Generator(np.random.PCG64DXSM(seed)).permutation(int(unit.max()) + 1)
    return rows[np.lexsort((rows, rank[unit]))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", required=True, help="npz written by positions.py")
    ap.add_argument("--out", required=True, help="directory of the label shards")
    ap.add_argument("--per-roll", type=int, default=6, help="games per way of a first roll")
    ap.add_argument("--policy", default="nn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shard", type=int, default=500)
    ap.add_argument("--limit", type=int, default=None, help="label only this many positions")
    ap.add_argument("--part", default="0/1", metavar="K/N",
                    help="label only the shards k with k %% N == K (one process each: N processes "
                         "share a directory without doing a shard twice; default 0/1, all)")
    ap.add_argument("--vr", action="store_true",
                    help="variance-reduced rollouts (luck-adjusted probabilities, common dice)")
    ap.add_argument("--only", choices=("crashed", "roots"), default=None,
                    help="crashed: label only the crashed contact rows, in a random order of "
                         "decisions; roots: only the positions before a roll (role 0), not "
                         "the candidates after a play")
    ap.add_argument("--by-decision", action="store_true",
                    help="label every row, in a random order of decisions (a decision's rows "
                         "together, so that a partial run feeds the ranking losses whole decisions)")
    args = ap.parse_args(argv)
    pos = np.load(args.positions)
    boards = pos["boards"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {k: v for k, v in vars(args).items() if k not in ("limit", "part")
            and not (k in ("vr", "only", "by_decision") and not v)}      # older label directories match
    meta_path = out / "meta.json"
    if meta_path.exists():
        old = json.loads(meta_path.read_text())
        if old != meta:
            ap.error(f"{out} holds labels made with other settings: {old}")
    else:
        meta_path.write_text(json.dumps(meta, indent=1))
    # the shards name rows of the position file: a regenerated file must hold the same arrays
    digest = positions_digest(pos)
    digest_path = out / "positions.sha256"
    if digest_path.exists() and digest_path.read_text().split()[0] != digest:
        ap.error(f"{args.positions} is not the position file {out} was labelled from "
                 f"(sha256 {digest[:12]}..., the labels' {digest_path.read_text()[:12]}...)")
    digest_path.write_text(f"{digest}  {Path(args.positions).name}\n")
    order = np.random.Generator(np.random.PCG64DXSM(args.seed)).permutation(len(boards))
    if args.only == "crashed":
        order = crashed_decision_order(pos, args.seed)
    elif args.only == "roots":
        order = order[pos["role"][order] == 0]
    elif args.by_decision:
        order = decision_order(pos, np.arange(len(boards)), args.seed)
    if args.limit is not None:
        order = order[: args.limit]
    eng = get_engine("cython")
    policy = eng.make_policy(args.policy)
    shards = range(0, len(order), args.shard)
    t0 = time.perf_counter()
    done = 0
    part, parts = (int(x) for x in args.part.split("/"))
    for k, start in enumerate(shards):
        path = out / f"shard_{k:05d}.npz"
        if path.exists() or k % parts != part:
            continue
        idx = order[start:start + args.shard]
        tmp = path.with_suffix(".tmp.npz")
        if args.vr:
            res = [vr_label(boards[i], args.policy, args.seed, args.per_roll) for i in idx]
            np.savez(tmp, index=idx.astype(np.int64), counts=np.array([r[0] for r in res], np.int32),
                     probs=np.array([r[1] for r in res], np.float32))
        else:
            counts = np.array([label(eng, policy, np.ascontiguousarray(boards[i]), int(i),
                                     args.seed, args.per_roll) for i in idx], dtype=np.int32)
            np.savez(tmp, index=idx.astype(np.int64), counts=counts)
        tmp.replace(path)      # a shard appears whole or not at all
        done += len(idx)
        rate = done / (time.perf_counter() - t0)
        print(f"shard {k}: {start + len(idx)}/{len(order)} positions, {rate:.1f} positions/s",
              file=sys.stderr, flush=True)
    return 0


def positions_digest(pos) -> str:
    """sha256 of a position file's numeric arrays (names, dtypes, shapes and contents; not the
    zip container, whose time stamps differ each time a file is written, nor text such as
    the generator's arguments, which name the output path)."""
    h = hashlib.sha256()
    for name in sorted(pos.files):
        a = np.ascontiguousarray(pos[name])
        if a.dtype.kind in "USO":
            continue
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def load(out) -> tuple[np.ndarray, np.ndarray]:
    """All finished shards of a label directory: (rows of the position file, counts)."""
    files = sorted(Path(out).glob("shard_*[0-9].npz"))
    if not files:
        return np.zeros(0, np.int64), np.zeros((0, 6), np.int32)
    parts = [np.load(f) for f in files]
    return (np.concatenate([p["index"] for p in parts]),
            np.concatenate([p["counts"] for p in parts]))


def load_probs(out) -> np.ndarray | None:
    """The luck-adjusted probabilities (n, 5) of a ``--vr`` label directory, in
    :func:`load`'s row order; None for plain rollout counts."""
    files = sorted(Path(out).glob("shard_*[0-9].npz"))
    parts = [np.load(f) for f in files]
    if not parts or "probs" not in parts[0].files:
        return None
    return np.concatenate([p["probs"] for p in parts])


if __name__ == "__main__":
    sys.exit(main())
