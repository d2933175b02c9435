"""How many contact feature numerators a candidate play changes, and how often it hits.

The `nn` policy scores a decision's plays from the position before the roll (swapped, as
the candidates are): each candidate multiplies only the feature rows whose numerator
differs from that position's (pyx/fastbg/_core/evaluator.pyx, ``ebase_t``), and when it
hits nothing it copies the opponent's features that read only the opponent's own row.
This counts both over the contact candidates of seeded self-play games of the `nn`
policy (docs/performance.md). Usage::

    python experiments/feature_deltas.py [--games 40] [--seed 5] [--json]
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from fastbg._core import features as F
from fastbg._core.evaluator import EvalPolicy
from fastbg._core.movegen import legal_plays
from fastbg.game import START_BOARD


def numerators(board: np.ndarray) -> np.ndarray:
    """The 56 numerators of a board: side 0's and side 1's 20, then their 8 extra."""
    return np.concatenate([F.contact_features(board).ravel(), F.extra_features(board).ravel()])


def count(games: int, seed: int) -> dict:
    policy = EvalPolicy()
    rng = np.random.default_rng(seed)
    changed, per_feature, hits, n = [], np.zeros(56), 0, 0
    for _ in range(games):
        b = np.array(START_BOARD, dtype=np.int8)
        while True:
            plays = legal_plays(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            if len(plays) == 0:
                b = b[::-1].copy()
                continue
            base = b[::-1].copy()
            if F.position_class(base) == "contact":
                fb = numerators(base)
                for p in plays:
                    after = p[::-1].copy()
                    if not after[1].any() or F.position_class(after) != "contact":
                        continue
                    d = numerators(after) != fb
                    changed.append((int(d[:40].sum()), int(d.sum())))
                    per_feature += d
                    hits += not np.array_equal(after[0], base[0])
                    n += 1
            nxt = plays[int(np.argmax(policy.play_equities(b, plays)))]
            if not nxt[0].any():
                break
            b = nxt[::-1].copy()
    a = np.array(changed)
    names = [f"{s}.{f}" for s in ("side0", "side1") for f in F.FEATURE_NAMES]
    names += [f"{s}.{f}" for s in ("side0", "side1") for f in F.EXTRA_FEATURE_NAMES]
    return {"games": games, "seed": seed, "contact_candidates": n,
            "mean_changed_of_40": float(a[:, 0].mean()), "mean_changed_of_56": float(a[:, 1].mean()),
            "hit_fraction": hits / n,
            "changed_fraction_by_feature": dict(zip(names, (per_feature / n).round(3).tolist()))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    res = count(args.games, args.seed)
    if args.json:
        print(json.dumps(res, indent=2))
        return
    print(f"{res['contact_candidates']:,} contact candidates in {args.games} nn self-play games: "
          f"{res['mean_changed_of_40']:.1f} of 40 numerators changed on average "
          f"({res['mean_changed_of_56']:.1f} of 56), {100 * res['hit_fraction']:.0f}% hit")


if __name__ == "__main__":
    main()
