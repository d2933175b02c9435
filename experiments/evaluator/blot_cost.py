"""What a blot-reading crashed net costs a rollout, side by side with other nets.

``python experiments/evaluator/blot_cost.py NETS.npz [NETS2.npz ...] [--position ID]
[--games 2592] [--runs 5] [--rounds 3] [--warm]``

Times ``fastbg.rollout(position, games, seed=1, policy="nn", workers=1, vr=False,
quasi_random=True)`` (``bench_gnubg_rollout.py``'s fastbg settings) with each nets file
(:func:`fastbg.spec.nets.save_nets`'s format) as the default ``nn`` nets, ``runs``
times a round, the files alternated ``rounds`` times, and prints each file's median
seconds and its ratio to the first file's. The memo of blot features
(:func:`fastbg._core.evaluator.clear_blot_memo`) is emptied before each rollout unless
``--warm``. The default position is the speed benchmark's contact one. TRAINING.md, stop 33.
"""
from __future__ import annotations

import argparse
import statistics
import time

import fastbg
from fastbg._core.evaluator import clear_blot_memo
from fastbg.spec import nets as evaluator
from with_nets import use_nets


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nets", nargs="+")
    ap.add_argument("--position", default="bJ7BARiw5+ABMA")
    ap.add_argument("--games", type=int, default=2592)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warm", action="store_true")
    args = ap.parse_args(argv)
    nets = {path: evaluator.load_nets(path) for path in args.nets}
    use_nets(nets[args.nets[0]])
    fastbg.rollout(args.position, 100, seed=0, policy="nn", workers=1, vr=False)  # databases
    seconds: dict[str, list[float]] = {path: [] for path in args.nets}
    for _ in range(args.rounds):
        for path, w in nets.items():
            use_nets(w)
            for _ in range(args.runs):
                if not args.warm:
                    clear_blot_memo()
                t0 = time.perf_counter()
                fastbg.rollout(args.position, args.games, seed=1, policy="nn", workers=1,
                               vr=False, quasi_random=True)
                seconds[path].append(time.perf_counter() - t0)
    first = statistics.median(seconds[args.nets[0]])
    for path, s in seconds.items():
        m = statistics.median(s)
        print(f"{path}: median {m:.3f} s over {len(s)} rollouts, {m / first:.3f}x the first")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
