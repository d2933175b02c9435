"""Where the crashed class loses: equity bias of the 0-ply nets against rollouts.

The checker-play benchmark's crashed decisions whose plays fall in two classes (some plays
leave a race, some a crashed contact position) carry most of fastbg's gap to GNU
Backgammon 0-ply there: the chosen play compares a race net's value with a crashed net's,
so a level error of either net is a checker-play error. This script measures that level,
play by play, against fastbg's own variance-reduced rollouts (:func:`fastbg.rollout`,
``vr=True``, the shipped ``nn`` policy; GNU Backgammon's figures are in the decisions file
and are shown beside, never used as labels).

For each decision of ``--decisions`` of class ``crashed`` whose plays are in both the race
and the crashed class (``fastbg.reference.features``), the ``--top`` plays best by GNU
Backgammon 2-ply are rolled out (``--games`` games each, one seed: common dice) and the
report gives, by the class of the position after the play, the mean signed difference and
the mean absolute difference from the rollout of: the nets' 0-ply (``--nets``, default the
shipped), GNU Backgammon 2-ply and GNU Backgammon 0-ply. Equities are the mover's, cubeless.

``--split-plies K`` reports instead the checker-play error of the nets at K plies and of GNU
Backgammon 0-ply on every crashed decision, by the classes of its plays (``crashed``,
``crashed+race``, ...): where the error is (``--candidates C``: the replies a roll of a
2-ply search, 1 as ``lookahead.py``'s labels, default 3).

``--referee REPORT`` reads a report of the rollouts (this script's ``--output``) and gives
the checker-play error of each evaluator with the rollouts as the referee: for each
decision, the rollout equity lost by the play it ranks first among the rolled-out plays
(mp, mean and standard error). A rollout run reports it too. It says whether the gap is
the benchmark's referee's (GNU Backgammon 2-ply shares its 0-ply's net) or the play's.

Usage::

    python experiments/evaluator/crashed_bias.py --decisions \\
        experiments/results/errorrate_contact_valid2.jsonl.gz --limit 100 \\
        --output experiments/results/crashed_bias_g16.json
    python experiments/evaluator/crashed_bias.py --referee \\
        experiments/results/crashed_bias_g16.json
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

import fastbg
from fastbg import Position
from fastbg.reference.features import is_crashed, position_class

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hook_ply import load as load_hook  # noqa: E402
import record  # noqa: E402  (experiments/record.py: command, date and commit of a result)


def play_class(board: np.ndarray) -> str:
    """``"crashed"``, ``"contact"``, ``"race"`` or ``"bearoff"`` of a position after a play."""
    c = position_class(board)
    return "crashed" if c == "contact" and is_crashed(board) else c


def crashed_decisions(path: str):
    """The decisions of class ``crashed`` of an errorrate.py decisions file, each with the
    boards after its plays (the opponent on roll) and their classes (:func:`play_class`)."""
    with gzip.open(path, "rt") as fh:
        for line in fh:
            d = json.loads(line)
            if d["class"] != "crashed":
                continue
            boards = np.array([Position.parse(p["position_id"]).board for p in d["plays"]])
            yield d, boards, [play_class(b) for b in boards]


def split(args) -> int:
    """``--split-plies K``: error against gnubg 2-ply by the classes of a decision's plays."""
    mover = load_hook(f"plies={args.split_plies},candidates={args.candidates}"
                      + (f",nets={args.nets}" if args.nets else ""))
    groups: dict = {}
    for d, boards, classes in crashed_decisions(args.decisions):
        key = "+".join(sorted(set(classes)))
        eq2 = np.array([p["eq2"] for p in d["plays"]])
        eq0 = np.array([p["eq0"] for p in d["plays"]])
        g = groups.setdefault(key, [0, 0.0, 0.0])
        g[0] += 1
        g[1] += 1000 * (eq2.max() - eq2[int(np.argmax(mover(boards)))])
        g[2] += 1000 * (eq2.max() - eq2[int(np.argmax(eq0))])
    report = {"command": record.command(), "plies": args.split_plies,
              "candidates": args.candidates,
              "by_play_classes": {k: {"decisions": n, "nets_mp": a / n, "gnubg0_mp": b / n}
                                  for k, (n, a, b) in sorted(groups.items())}}
    for k, v in report["by_play_classes"].items():
        print(f"{k:24s} {v['decisions']:5d} decisions  nets {v['nets_mp']:.2f} mp  "
              f"gnubg 0-ply {v['gnubg0_mp']:.2f} mp")
    if args.output:
        record.write_json(args.output, report)
    return 0


def referee(rows: list) -> dict:
    """Checker-play error (mp) of each evaluator against the rollouts of a report's plays.

    For every decision with at least two rolled-out plays: the rollout equity of the best
    rolled-out play minus that of the play the evaluator ranks first among them.
    """
    by_id: dict = {}
    for r in rows:
        by_id.setdefault(r["id"], []).append(r)
    errs: dict = {k: [] for k in ("nets0", "gnubg0", "gnubg2")}
    for plays in by_id.values():
        if len(plays) < 2:
            continue
        ro = np.array([p["rollout"] for p in plays])
        for k, e in errs.items():
            e.append(1000 * (ro.max() - ro[int(np.argmax([p[k] for p in plays]))]))
    return {k: {"decisions": len(e), "mp": float(np.mean(e)),
                "se_mp": float(np.std(e, ddof=1) / np.sqrt(len(e)))}
            for k, e in errs.items() if len(e) > 1}


def print_referee(ref: dict) -> None:
    for k, v in ref.items():
        print(f"refereed by the rollouts: {k:6s} {v['mp']:.2f} +- {v['se_mp']:.2f} mp "
              f"({v['decisions']} decisions)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", help="an errorrate.py decisions file")
    ap.add_argument("--nets", default=None, help="a nets file (default: the shipped nets)")
    ap.add_argument("--limit", type=int, default=100, help="decisions to roll out")
    ap.add_argument("--top", type=int, default=3, help="plays a decision, best by gnubg 2-ply")
    ap.add_argument("--games", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--output", default=None)
    ap.add_argument("--split-plies", type=int, default=None, choices=(0, 1, 2),
                    help="instead of the rollouts: the checker-play error (mp) of the nets at "
                         "this many plies and of gnubg 0-ply on every crashed decision, by the "
                         "classes of its plays")
    ap.add_argument("--candidates", type=int, default=3,
                    help="with --split-plies 2: replies a roll (lookahead.py's labels: 1)")
    ap.add_argument("--referee", default=None, metavar="REPORT",
                    help="a rollout report of this script: the checker-play error of each "
                         "evaluator with the rollouts as the referee")
    args = ap.parse_args(argv)
    if args.referee:
        print_referee(referee(json.loads(Path(args.referee).read_text())["plays"]))
        return 0
    if not args.decisions:
        ap.error("--decisions is required (or --referee REPORT)")
    if args.split_plies is not None:
        return split(args)
    mover = load_hook("plies=0" + (f",nets={args.nets}" if args.nets else ""))
    rows, n_dec, t0 = [], 0, time.perf_counter()
    for d, boards, classes in crashed_decisions(args.decisions):
        if not {"race", "crashed"} <= set(classes):
            continue
        n_dec += 1
        if n_dec > args.limit:
            break
        plays = d["plays"]
        ours = mover(boards)
        eq2 = np.array([p["eq2"] for p in plays])
        for i in np.argsort(-eq2, kind="stable")[: args.top]:
            r = fastbg.rollout(np.ascontiguousarray(boards[i]), games=args.games,
                               seed=args.seed, workers=args.workers, vr=True)
            rows.append({"id": d["id"], "play": plays[i]["move"], "class": classes[i],
                         "nets0": float(ours[i]), "gnubg2": plays[i]["eq2"],
                         "gnubg0": plays[i]["eq0"], "rollout": -r.equity,
                         "rollout_se": r.stderr["equity"]})
    report = {"command": record.command(), "decisions": min(n_dec, args.limit),
              "seconds": round(time.perf_counter() - t0, 1), "by_class": {}, "plays": rows}
    print(f"{report['decisions']} decisions, {len(rows)} plays rolled out "
          f"({args.games} games each, vr)")
    for cls in sorted({r["class"] for r in rows}):
        sel = [r for r in rows if r["class"] == cls]
        ro = np.array([r["rollout"] for r in sel])
        out = {"plays": len(sel), "rollout_se": float(np.mean([r["rollout_se"] for r in sel]))}
        line = [f"{cls:8s} {len(sel):4d} plays"]
        for k in ("nets0", "gnubg2", "gnubg0"):
            diff = np.array([r[k] for r in sel]) - ro
            out[k] = {"bias": float(diff.mean()), "bias_se": float(diff.std(ddof=1) / np.sqrt(len(diff)))
                      if len(diff) > 1 else None, "mae": float(np.abs(diff).mean())}
            line.append(f"{k} {diff.mean():+.4f} (mae {np.abs(diff).mean():.4f})")
        report["by_class"][cls] = out
        print("  ".join(line))
    report["refereed_by_rollouts"] = referee(rows)
    print_referee(report["refereed_by_rollouts"])
    if args.output:
        record.write_json(args.output, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
