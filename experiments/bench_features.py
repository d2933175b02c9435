"""Time the Cython core's evaluator features (fastbg._core.features): boards per second.

Boards are the positions of seeded random games (every position a side is on roll in),
so the mix of contact, race and bar positions is a game's. Usage::

    python experiments/bench_features.py [--games 2000] [--repeat 5]

Prints the best of ``--repeat`` timings of each batch function and of the single-board
``def`` wrapper (which pays Python's call and validation overhead per board).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from fastbg._core import features as F
from fastbg._core.movegen import legal_plays
from fastbg.reference.board import START_BOARD, swap


def game_positions(games: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        b = np.array(START_BOARD, dtype=np.int8)
        while b[0].sum() and b[1].sum():
            out.append(b)
            plays = legal_plays(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            if len(plays):
                b = plays[int(rng.integers(len(plays)))]
            b = swap(b)
    return np.ascontiguousarray(out, dtype=np.int8)


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    boards = game_positions(args.games, args.seed)
    n = len(boards)
    classes = {c: 0 for c in F.POSITION_CLASSES}
    for b in boards[: min(n, 20000)]:
        classes[F.position_class(b)] += 1
    print(f"{n} positions of {args.games} random games; classes of the first 20000: {classes}")
    for name in ("contact_features_many", "extra_features_many", "contact_inputs_many",
                 "race_inputs_many"):
        fn = getattr(F, name)
        t = best_of(lambda fn=fn: fn(boards), args.repeat)
        print(f"{name:24s} {n / t:12,.0f} boards/s  ({1e9 * t / n:6.1f} ns/board)")
    few = boards[:20000]
    t = best_of(lambda: [F.contact_features(b) for b in few], max(1, args.repeat // 2))
    print(f"{'contact_features (1 by 1)':24s} {len(few) / t:12,.0f} boards/s  "
          f"({1e9 * t / len(few):6.1f} ns/board)")


if __name__ == "__main__":
    main()
