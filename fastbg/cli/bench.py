"""``fastbg perft`` and ``bench``: the move generator's and the engines' benchmarks."""
from __future__ import annotations

import argparse
import sys
import threading
import time


from ..engine import ENGINES, get_engine
from ..game import parse_game
from ..rollouts.bench import format_table, run_bench

from .common import (_ENGINE_HELP, _POSITION_HELP, _positive_int, _seed,
                     add_no_progress_option, ascii_number, print_json)


def add_parsers(sub) -> None:
    """The ``perft`` and ``bench`` commands."""
    f = sub.add_parser("perft", help="leaves of the game tree over all 21 rolls per ply (move-generator benchmark)")
    f.add_argument("position", metavar="POSITION", help=_POSITION_HELP)
    f.add_argument("depth", metavar="DEPTH", type=_depth, help="plies, 0..16 (each depth 1..DEPTH is counted)")
    f.add_argument("--engine", choices=ENGINES, default="cython", help=_ENGINE_HELP)
    f.add_argument("--force", action="store_true",
                   help="count a depth even if it is estimated to take more than a day")
    f.add_argument("--json", action="store_true", help="machine-readable output")
    add_no_progress_option(f, shows="time estimate on stderr before a depth of more than a minute")

    k = sub.add_parser("bench", help="games/s and legal plays/s of each engine (Markdown table)")
    k.add_argument("--engine", choices=ENGINES, action="append", default=None,
                   help="engine to measure (repeatable; default both)")
    k.add_argument("--repeat", type=_positive_int, default=5, help="timed runs per figure (median; default 5)")
    k.add_argument("--seed", type=_seed, default=1, help="seed of the games (default 1)")
    k.add_argument("--workers", "-w", type=_positive_int, default=1,
                   help="threads for the Cython game workloads (default 1)")
    k.add_argument("--json", action="store_true", help="machine-readable output")
    add_no_progress_option(k, shows="progress lines (each figure on stderr as it is measured)")


def _depth(text: str) -> int:
    ascii_number(text)
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth {text!r} is not a whole number") from None
    if not 0 <= v <= 16:
        raise argparse.ArgumentTypeError(f"depth {text!r} must be in 0..16")
    return v


def _interruptible(fn, *args):
    """``fn(*args)`` in a worker thread, the main thread waiting, so Ctrl-C stops the wait
    at once even while ``fn`` runs compiled code without the GIL (the thread is a daemon:
    it ends with the process)."""
    out = {}

    def work():
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            out["error"] = exc

    t = threading.Thread(target=work, name="fastbg-perft", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.1)
    if "error" in out:
        raise out["error"]
    return out["value"]


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.0f} seconds"


#: A perft depth estimated to run longer than this is refused unless --force is given.
PERFT_MAX_SECONDS = 86400.0


def _estimate(rows, ahead: int = 1) -> tuple[float, float] | None:
    """Leaves and seconds of the depth ``ahead`` plies after the last one counted, from
    the growth of the last two depths and the speed of the last (None before two depths
    are known or when the last took too little time to measure a speed). The tree grows a little faster
    with depth, so this errs low."""
    if len(rows) < 2 or rows[-1]["seconds"] < 0.05 or rows[-2]["leaves"] < 1:
        return None   # too little work to time
    growth = rows[-1]["leaves"] / rows[-2]["leaves"]
    leaves = rows[-1]["leaves"] * growth ** ahead
    rate = rows[-1]["leaves"] / rows[-1]["seconds"]
    return leaves, leaves / rate


def _cmd_perft(args) -> int:
    pos, _, dice = parse_game(args.position)
    if dice is not None:
        # the tree branches over all 21 rolls from the first ply on: a rolled position's
        # dice would be silently dropped, as eval and cube refuse to
        raise ValueError(
            f"POSITION has the dice rolled ({dice[0]}-{dice[1]}): perft counts the tree of "
            "a position before the roll, over all 21 rolls at every ply; give it before the "
            "roll (dice 00 in an XGID), or list that roll's plays with 'fastbg moves'")
    # a finished game has no tree (it counted 1 leaf at every depth), as eval and
    # rollout refuse it
    pos.check_playable()
    perft = get_engine(args.engine).perft
    rows = [{"depth": 0, "leaves": 1, "seconds": 0.0}]  # depth 0 is one leaf, no work
    out_rows = []
    for depth in range(min(1, args.depth), args.depth + 1):
        last = _estimate(rows, args.depth - depth + 1)   # the deepest depth asked for
        if last is not None and last[1] > PERFT_MAX_SECONDS and not args.force:
            refusal = (
                f"depth {args.depth} would take about {_duration(last[1])} (about "
                f"{last[0]:.1e} leaves at the {rows[-1]['leaves'] / rows[-1]['seconds']:,.0f} "
                f"leaves/s of depth {depth - 1}): ask for fewer plies, or give --force")
            if args.json:   # the depths counted so far are kept, as the text prints them
                print_json({"position_id": pos.to_position_id(), "engine": args.engine,
                            "depths": out_rows, "refused": refusal}, indent=2)
            raise ValueError(refusal)
        guess = _estimate(rows)
        if guess is not None and guess[1] > 60 and not args.no_progress:
            print(f"  depth {depth}: about {guess[0]:.1e} leaves, roughly {_duration(guess[1])} "
                  "(Ctrl-C stops)", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        leaves = _interruptible(perft, pos.board, depth)
        sec = time.perf_counter() - t0
        if depth > 0:
            rows.append({"depth": depth, "leaves": leaves, "seconds": sec})
        row = {"depth": depth, "leaves": leaves, "seconds": sec,
               "leaves_per_second": leaves / sec if sec > 0 else None}
        out_rows.append(row)
        if not args.json:
            if depth == min(1, args.depth):
                print(f"perft of {pos.to_position_id()}, engine {args.engine} "
                      "(21 rolls per ply, distinct plays, a finished game is one leaf)")
                print(f"  {'depth':>5} {'leaves':>18} {'seconds':>10} {'leaves/s':>14}")
            lps = f"{row['leaves_per_second']:,.0f}" if sec > 0 else "-"
            print(f"  {depth:>5} {leaves:>18,} {sec:>10.3f} {lps:>14}", flush=True)
    if args.json:
        print_json({"position_id": pos.to_position_id(), "engine": args.engine,
                    "depths": out_rows}, indent=2)
    return 0


def _cmd_bench(args) -> int:
    engines = tuple(dict.fromkeys(args.engine or ENGINES))
    log = None if args.json or args.no_progress else (
        lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    report = run_bench(engines, repeat=args.repeat, seed=args.seed, workers=args.workers, log=log)
    if args.json:
        print_json(report, indent=2)
    else:
        print(format_table(report))
    return 0


COMMANDS = {"perft": _cmd_perft, "bench": _cmd_bench}
