"""The ``fastbg`` command line.

Commands
--------
``fastbg show POSITION``
    Board diagram, pip counts and IDs.
``fastbg moves POSITION DICE [--json] [--engine E]``
    Every legal play with its notation and resulting Position ID (turn passed).
``fastbg rollout [POSITION] [--games N] [--seed S] [--workers W] [--policy P]
[--engine E] [--dice D] [--json]``
    Monte Carlo rollout: win, gammon and backgammon probabilities with standard
    errors.
``fastbg perft POSITION DEPTH [--engine E] [--json]``
    Leaves of the game tree over all 21 rolls at each ply, for depths 1..DEPTH,
    with the time and leaves per second of each: the move generator's
    correctness-and-speed benchmark.
``fastbg bench [--repeat R] [--engine E ...] [--json]``
    Random-policy and pubeval games per second and legal-play generation rate of
    each engine, medians of repeated runs, as a Markdown table.

POSITION is ``start``, a GNU Backgammon Position ID or an XGID (``XGID=...``).
Bad arguments print one line naming the problem and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import re
import sys

from . import __version__
from .engine import ENGINES
from .plays import legal_plays, parse_dice
from .position import Position
from .rollout import POLICIES, PROBABILITY_KEYS, normal_quantile, rollout

EXIT_USAGE = 2
_BARE_XGID = re.compile(r"^[-a-oA-O]{26}(:|$)")
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2, no usage dump
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(EXIT_USAGE)


def _positive_int(text: str) -> int:
    try:
        v = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return v


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r} is not a whole number") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"seed {text!r} must be non-negative")
    return v


def _dice_arg(text: str):
    try:
        return parse_dice(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fastbg", description="Backgammon simulation engine: legal plays and Monte Carlo rollouts.")
    p.add_argument("--version", action="version", version=f"fastbg {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("show", help="board diagram, pip counts and IDs of a position")
    s.add_argument("position", metavar="POSITION", help="'start', a Position ID or an XGID")

    m = sub.add_parser("moves", help="every legal play for a roll")
    m.add_argument("position", metavar="POSITION", help="'start', a Position ID or an XGID")
    m.add_argument("dice", metavar="DICE", nargs="+", help="the roll: 31, 3-1 or 3 1")
    m.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the compiled core (default) or the pure-Python reference")
    m.add_argument("--json", action="store_true", help="machine-readable output")

    r = sub.add_parser("rollout", help="Monte Carlo rollout of a position")
    r.add_argument("position", metavar="POSITION", nargs="?", default="start",
                   help="'start' (default), a Position ID or an XGID")
    r.add_argument("--games", "-n", type=_positive_int, default=10_000, help="games to play (default 10000)")
    r.add_argument("--seed", type=_seed, default=None, help="root seed (default: fresh entropy, reported)")
    r.add_argument("--workers", "-w", type=_positive_int, default=None, help="threads (default: one per CPU)")
    r.add_argument("--policy", choices=POLICIES, default="pubeval",
                   help="how both sides play: Tesauro's pubeval (default) or uniformly random")
    r.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the compiled core (default) or the pure-Python reference; same numbers")
    r.add_argument("--dice", type=_dice_arg, default=None, help="fix the first roll, e.g. 31")
    r.add_argument("--opening", dest="opening", action="store_true", default=None,
                   help="begin with the opening roll (default for 'start' without --dice)")
    r.add_argument("--no-opening", dest="opening", action="store_false",
                   help="the player on roll rolls normally, doubles included")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")

    f = sub.add_parser("perft", help="leaves of the game tree over all 21 rolls per ply (move-generator benchmark)")
    f.add_argument("position", metavar="POSITION", help="'start', a Position ID or an XGID")
    f.add_argument("depth", metavar="DEPTH", type=_depth, help="plies, 0..16 (each depth 1..DEPTH is counted)")
    f.add_argument("--engine", choices=ENGINES, default="cython")
    f.add_argument("--json", action="store_true", help="machine-readable output")

    k = sub.add_parser("bench", help="games/s and legal plays/s of each engine (Markdown table)")
    k.add_argument("--engine", choices=ENGINES, action="append", default=None,
                   help="engine to measure (repeatable; default both)")
    k.add_argument("--repeat", type=_positive_int, default=5, help="timed runs per figure (median; default 5)")
    k.add_argument("--seed", type=_seed, default=1, help="seed of the games (default 1)")
    k.add_argument("--workers", "-w", type=_positive_int, default=1,
                   help="threads for the Cython game workloads (default 1)")
    k.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def _depth(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth {text!r} is not a whole number") from None
    if not 0 <= v <= 16:
        raise argparse.ArgumentTypeError(f"depth {text!r} must be in 0..16")
    return v


def _cmd_perft(args) -> int:
    import time

    from .engine import get_engine

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
        print(json.dumps({"position_id": pos.to_position_id(), "engine": args.engine,
                          "depths": rows}, indent=2))
    return 0


def _cmd_bench(args) -> int:
    from .bench import format_table, run_bench

    engines = tuple(dict.fromkeys(args.engine or ENGINES))
    log = None if args.json else (lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    report = run_bench(engines, repeat=args.repeat, seed=args.seed, workers=args.workers, log=log)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_table(report))
    return 0


def _cmd_show(args) -> int:
    print(Position.parse(args.position))
    return 0


def _cmd_moves(args) -> int:
    pos = Position.parse(args.position)
    dice = parse_dice(" ".join(args.dice))
    plays = legal_plays(pos, dice, engine=args.engine)
    if args.json:
        print(json.dumps({
            "position_id": pos.to_position_id(),
            "dice": list(dice),
            "plays": [{"move": pl.move, "position_id": pl.position_id} for pl in plays],
        }, indent=2))
        return 0
    print(f"Position {pos.to_position_id()}, roll {dice[0]}-{dice[1]}: "
          f"{len(plays)} legal play{'s' if len(plays) != 1 else ''}")
    if not plays:
        print("  no legal play: the position stays as it is and the turn passes")
    width = max((len(pl.move) for pl in plays), default=0)
    for i, pl in enumerate(plays, 1):
        print(f"  {i:>4}. {pl.move:<{width}}   {pl.position_id}")
    return 0


def _format_table(res) -> str:
    z = normal_quantile(0.975)
    label = {"win": "win", "win_gammon": "win gammon", "win_backgammon": "win backgammon",
             "lose_gammon": "lose gammon", "lose_backgammon": "lose backgammon",
             "equity": "cubeless equity"}
    lines = []
    head = "INTERRUPTED: " if res.interrupted else ""
    lines.append(f"{head}Rollout of {res.position_id}: {res.games:,} games"
                 + (f" of {res.games_requested:,} requested" if res.interrupted else ""))
    extra = f", first roll {res.dice[0]}-{res.dice[1]}" if res.dice else ""
    extra += ", opening roll" if res.opening else ""
    lines.append(f"policy {res.policy}, engine {res.engine}, workers {res.workers}, seed {res.seed}{extra}")
    lines.append("")
    lines.append(f"  {'':<16} {'estimate':>9} {'std.err':>9}   {'95% confidence interval':>24}")
    for key in (*PROBABILITY_KEYS, "equity"):
        est, se = getattr(res, key), res.stderr[key]
        lo, hi = est - z * se, est + z * se
        sign = "+" if key == "equity" else ""
        lines.append(f"  {label[key]:<16} {est:{sign}9.4f} {se:9.4f}   "
                     f"[{lo:{sign}.4f}, {hi:{sign}.4f}]")
    lines.append("")
    lines.append(f"  {res.seconds:.2f} s, {res.games_per_second:,.0f} games/s")
    return "\n".join(lines)


def _cmd_rollout(args) -> int:
    pos = Position.parse(args.position)
    bar = None
    progress = None
    if not args.no_progress:  # tqdm shows nothing when stderr is not a terminal
        from tqdm import tqdm

        bar = tqdm(total=args.games, unit="game", unit_scale=True, file=sys.stderr,
                   disable=None, dynamic_ncols=True, leave=False)
        progress = bar.update
    try:
        res = rollout(pos, args.games, seed=args.seed, workers=args.workers, policy=args.policy,
                      engine=args.engine, dice=args.dice, opening=args.opening, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if res.games == 0:
        print("interrupted before any game finished; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        print(_format_table(res))
    return EXIT_INTERRUPTED if res.interrupted else 0


_COMMANDS = {"show": _cmd_show, "moves": _cmd_moves, "rollout": _cmd_rollout,
             "perft": _cmd_perft, "bench": _cmd_bench}


def main(argv=None) -> int:
    """Entry point of the ``fastbg`` console script; returns the exit status."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # An XGID written without its prefix may start with '-' (an empty bar), which
    # argparse would read as an option: give it its prefix.
    argv = ["XGID=" + a if _BARE_XGID.match(a) else a for a in argv]
    args = parser.parse_args(argv)
    try:
        code = _COMMANDS[args.command](args)
        sys.stdout.flush()  # a full disk or closed pipe is reported here, not at exit
        return code
    except ValueError as exc:
        sys.stderr.write(f"fastbg {args.command}: error: {exc}\n")
        return EXIT_USAGE
    except ImportError as exc:
        sys.stderr.write(f"fastbg {args.command}: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("fastbg: interrupted\n")
        return EXIT_INTERRUPTED
    except OSError as exc:
        if not isinstance(exc, BrokenPipeError):
            sys.stderr.write(f"fastbg {args.command}: error: cannot write the output: {exc.strerror or exc}\n")
            return 1
        # The reader went away (`fastbg moves ... | head`): not an error of ours.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
