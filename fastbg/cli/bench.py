"""``fastbg perft`` and ``bench``: the move generator's and the engines' benchmarks."""
from __future__ import annotations

import argparse
import sys
import time


from ..engine import ENGINES, get_engine
from ..game import Position
from ..rollouts.bench import format_table, run_bench

from .common import (_ENGINE_HELP, _POSITION_HELP, _positive_int, _seed, print_json)


def add_parsers(sub) -> None:
    """The ``perft`` and ``bench`` commands."""
    f = sub.add_parser("perft", help="leaves of the game tree over all 21 rolls per ply (move-generator benchmark)")
    f.add_argument("position", metavar="POSITION", help=_POSITION_HELP)
    f.add_argument("depth", metavar="DEPTH", type=_depth, help="plies, 0..16 (each depth 1..DEPTH is counted)")
    f.add_argument("--engine", choices=ENGINES, default="cython", help=_ENGINE_HELP)
    f.add_argument("--json", action="store_true", help="machine-readable output")

    k = sub.add_parser("bench", help="games/s and legal plays/s of each engine (Markdown table)")
    k.add_argument("--engine", choices=ENGINES, action="append", default=None,
                   help="engine to measure (repeatable; default both)")
    k.add_argument("--repeat", type=_positive_int, default=5, help="timed runs per figure (median; default 5)")
    k.add_argument("--seed", type=_seed, default=1, help="seed of the games (default 1)")
    k.add_argument("--workers", "-w", type=_positive_int, default=1,
                   help="threads for the Cython game workloads (default 1)")
    k.add_argument("--json", action="store_true", help="machine-readable output")


def _depth(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth {text!r} is not a whole number") from None
    if not 0 <= v <= 16:
        raise argparse.ArgumentTypeError(f"depth {text!r} must be in 0..16")
    return v


def _cmd_perft(args) -> int:

    pos = Position.parse(args.position)
    perft = get_engine(args.engine).perft
    rows = []
    for depth in range(min(1, args.depth), args.depth + 1):
        t0 = time.perf_counter()
        leaves = perft(pos.board, depth)
        sec = time.perf_counter() - t0
        rows.append({"depth": depth, "leaves": leaves, "seconds": sec,
                     "leaves_per_second": leaves / sec if sec > 0 else None})
        if not args.json:
            if depth == min(1, args.depth):
                print(f"perft of {pos.to_position_id()}, engine {args.engine} "
                      "(21 rolls per ply, distinct plays, a finished game is one leaf)")
                print(f"  {'depth':>5} {'leaves':>18} {'seconds':>10} {'leaves/s':>14}")
            lps = f"{rows[-1]['leaves_per_second']:,.0f}" if sec > 0 else "-"
            print(f"  {depth:>5} {leaves:>18,} {sec:>10.3f} {lps:>14}", flush=True)
    if args.json:
        print_json({"position_id": pos.to_position_id(), "engine": args.engine,
                          "depths": rows}, indent=2)
    return 0


def _cmd_bench(args) -> int:
    engines = tuple(dict.fromkeys(args.engine or ENGINES))
    log = None if args.json else (lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    report = run_bench(engines, repeat=args.repeat, seed=args.seed, workers=args.workers, log=log)
    if args.json:
        print_json(report, indent=2)
    else:
        print(format_table(report))
    return 0


COMMANDS = {"perft": _cmd_perft, "bench": _cmd_bench}
