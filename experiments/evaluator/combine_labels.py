"""Look-ahead labels moved to the level of rollouts, decision by decision.

A look-ahead label (``lookahead.py``) ranks the candidate plays of a decision well, since
its errors are mostly common to them, but it inherits the level errors of the net at its
leaves: in crashed positions generation 16's 2-ply labels are 0.06 equity above fastbg's
rollouts on average for the side on roll, and by more than 0.3 for 5% of them (a side on
the bar against a closed board with 13 checkers off valued at +0.88, rolled out at -0.24).
A rollout label (``labels.py --vr``) has the right level but the noise of its games.

For every row that has both labels this writes, in ``lookahead.py``'s format (so
``train.py`` reads it as ``lookahead:OUT``), the probabilities::

    look-ahead + mean over the decision (rollout - look-ahead)
               + mix * (this row's (rollout - look-ahead) - that mean)

component by component, clipped to [0, 1] and made consistent (backgammon <= gammon <=
win, lose gammon <= lose). ``--mix 0`` keeps the look-ahead's differences within a
decision and takes the rollouts' level (the noise of a decision's rollouts averaged);
``--mix 1`` is the rollout. A decision is the candidates of one roll (``role >= 1``, one
game and ply); other rows are decisions of their own.

Usage::

    python experiments/evaluator/combine_labels.py --positions RUNS/positions_w1x.npz \\
        --rollouts RUNS/rollvr_w1x --lookahead RUNS/lookahead_w1x --out RUNS/shift_w1x --mix 0
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import labels as labels_mod  # noqa: E402
import lookahead as lookahead_mod  # noqa: E402


def combine(look: np.ndarray, roll: np.ndarray, group: np.ndarray, mix: float) -> np.ndarray:
    """The combined probabilities of rows with look-ahead ``look`` and rollout ``roll``
    labels (n, 5) in decisions ``group`` (n,) int, any numbering."""
    off = roll - look
    _, g = np.unique(group, return_inverse=True)
    size = np.bincount(g).astype(np.float64)
    mean = np.stack([np.bincount(g, off[:, k]) / size for k in range(5)], axis=1)[g]
    return labels_mod.consistent(look + mean + mix * (off - mean))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", required=True)
    ap.add_argument("--rollouts", required=True, help="a labels.py --vr directory")
    ap.add_argument("--lookahead", required=True, help="lookahead.py's --out of the same positions")
    ap.add_argument("--out", required=True)
    ap.add_argument("--mix", type=float, default=0.0)
    args = ap.parse_args(argv)
    pos = np.load(args.positions)
    boards = pos["boards"]
    ridx, _ = labels_mod.load(args.rollouts)
    rprobs = labels_mod.load_probs(args.rollouts)
    if rprobs is None:
        ap.error(f"{args.rollouts} holds no luck-adjusted probabilities (labels.py --vr)")
    lidx, lprobs = lookahead_mod.load(args.lookahead, None, boards)
    where = np.full(len(boards), -1, np.int64)
    where[lidx] = np.arange(len(lidx))
    have = where[ridx] >= 0
    rows = ridx[have]
    look = lprobs[where[rows]].astype(np.float64)
    role = pos["role"][rows] if "role" in pos.files else np.zeros(len(rows), np.int64)
    group = np.where(role >= 1, pos["game"][rows].astype(np.int64) * 100000 + pos["ply"][rows],
                     -1 - rows)
    probs = combine(look, rprobs[have].astype(np.float64), group, args.mix)
    out = Path(args.out)
    for old in out.parent.glob(f"{out.name}_[0-9]*.npz"):
        old.unlink()
    np.savez(out.parent / f"{out.name}_0000.npz", index=rows.astype(np.int64),
             probs=probs.astype(np.float32), boards_sha256=lookahead_mod.fingerprint(boards[rows]))
    shift = (probs - look) @ np.array([2.0, 1.0, 1.0, -1.0, -1.0])
    print(f"{len(rows)} rows ({len(np.unique(group))} decisions), equity moved by "
          f"{shift.mean():+.4f} on average ({np.abs(shift).mean():.4f} absolute)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
