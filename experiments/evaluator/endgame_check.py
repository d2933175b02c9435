"""How far the nets' 0-ply values are from rollouts on a labelled set of positions.

For the random crashed endgames of ``positions.py --bar-endgames`` (or any positions file)
rolled out by ``labels.py --vr`` (``--per-roll 36``: 1,296 games each): the mean signed and
absolute differences of each evaluator's cubeless equity and win chance, for the side on
roll, from the rollouts'. An evaluator is a nets file (``--nets``, the compiled core at 0
ply) or a float crashed checkpoint (``--crashed``, read by ``hook.py`` with generation 16's
contact and race nets), and with ``--gnubg`` GNU Backgammon 0-ply for comparison (a
measuring stick only); rows also in an ``--exclude`` file (a positions file of the training set) are
left out.

Usage::

    python experiments/evaluator/endgame_check.py --positions RUNS/positions_be2.npz \\
        --labels RUNS/rollvr_be2 --exclude RUNS/positions_be1.npz \\
        --exclude RUNS/positions_be3.npz \\
        --nets RUNS/nets_g16.npz --crashed RUNS/zB1/epoch_009.npz
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hook  # noqa: E402
from train import equity, read_labels, targets  # noqa: E402

from fastbg import Position  # noqa: E402
from fastbg._core.evaluator import EvalPolicy  # noqa: E402
from fastbg.reference.evaluator import load_nets  # noqa: E402

RUNS = Path(__file__).resolve().parent.parent / "runs" / "evaluator"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", required=True)
    ap.add_argument("--labels", required=True, help="a labels.py --vr directory")
    ap.add_argument("--exclude", action="append", default=[],
                    help="a positions file whose boards are left out (repeatable)")
    ap.add_argument("--nets", action="append", default=[], help="a nets file (repeatable)")
    ap.add_argument("--crashed", action="append", default=[],
                    help="a float crashed checkpoint (repeatable), beside generation 16's "
                         "contact (s16c) and race (r14) nets")
    ap.add_argument("--gnubg", action="store_true", help="also GNU Backgammon 0-ply")
    args = ap.parse_args(argv)
    boards = np.load(args.positions)["boards"]
    idx, counts, probs = read_labels(args.labels, boards)
    p_ro = targets(counts) if probs is None else probs
    b = boards[idx]
    if args.exclude:
        seen = {x.tobytes() for f in args.exclude for x in np.load(f)["boards"]}
        keep = np.array([x.tobytes() not in seen for x in b])
        b, p_ro = b[keep], p_ro[keep]
    e_ro = equity(p_ro)
    print(f"{len(b)} positions rolled out")
    evals = {}
    for n in args.nets:
        pol = EvalPolicy(load_nets(n))
        evals[Path(n).stem] = np.array([pol.probabilities(np.ascontiguousarray(x)) for x in b])
    if args.crashed:        # generation 16's contact and race nets, loaded once
        others = {"contact": hook._load(str(RUNS / "s16c" / "epoch_019.npz")),
                  "race": hook._load(str(RUNS / "r14" / "epoch_000.npz"))}
    for c in args.crashed:
        evals[Path(c).parent.name] = hook.probabilities({**others, "crashed": hook._load(c)}, b)
    if args.gnubg:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        import gnubg_driver

        exe = gnubg_driver.require_gnubg()
        ids = [Position(x).to_position_id() for x in b]
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "eval.jsonl"
            gnubg_driver.batch(exe, [{"key": 0, "evaluate": ids}], out, contexts=["0ply"])
            ev = json.loads(out.read_text().splitlines()[0])["eval"]["0ply"]
        evals["gnubg 0-ply"] = np.array(ev)[:, :5]
    for name, p in evals.items():
        d_eq, d_win = equity(p) - e_ro, p[:, 0] - p_ro[:, 0]
        print(f"{name:12s} equity {d_eq.mean():+.4f} (mean abs {np.abs(d_eq).mean():.4f}, "
              f"beyond 0.1: {(np.abs(d_eq) > 0.1).mean():.1%})  win {d_win.mean():+.4f} "
              f"(mean abs {np.abs(d_win).mean():.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
