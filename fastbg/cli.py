"""The ``fastbg`` command line.

Commands
--------
``fastbg show POSITION``
    Board diagram, pip counts and IDs.
``fastbg moves POSITION DICE [--json] [--engine E]``
    Every legal play with its notation and resulting Position ID (turn passed).
``fastbg rollout [POSITION] [--games N] [--seed S] [--workers W] [--policy P]
[--engine E] [--dice D] [--json] [--cubeful [--x X] [cube and match options]]``
    Monte Carlo rollout: win, gammon and backgammon probabilities with standard
    errors (the network plays by default); with ``--cubeful`` the cube is played in
    every game and the cubeful equity (money) or match winning chance is reported.
``fastbg perft POSITION DEPTH [--engine E] [--json]``
    Leaves of the game tree over all 21 rolls at each ply, for depths 1..DEPTH,
    with the time and leaves per second of each: the move generator's
    correctness-and-speed benchmark.
``fastbg eval POSITION [--engine E] [--json]``
    The neural network's 0-ply probabilities and cubeless equity.
``fastbg bench [--repeat R] [--engine E ...] [--json]``
    Random-policy and pubeval games per second and legal-play generation rate of
    each engine, medians of repeated runs, as a Markdown table.
``fastbg cube POSITION [--games N] [--seed S] [--workers W] [--policy P] [--x X]
[--match-length N] [--score A-B] [--cube V] [--owner O] [--max-cube V] [--crawford]
[--jacoby] [--beaver] [--met M] [--json]``
    Cube decision from a cubeless rollout: ND / DT / DP equities (money) or MWC and
    EMG (match) with standard errors, the proper action and its margin in standard
    errors of the difference. Cube and score also come from an XGID or GNU ID pair.
``fastbg met [--met M] [--length N] [--post-crawford] [--csv | --json]``
    The match equity table: pre-Crawford MWC for away scores 1..N, post-Crawford row.
``fastbg takepoints --length N [--met M] [--csv | --json]``
    Dead and live take points at every score 1- to N-away for 1-, 2- and 4-cubes.
``fastbg gammon-values --length N [--cube V] [--met M] [--csv | --json]``
    Gammon values (win and loss) at every score 1- to N-away.

POSITION is ``start``, a GNU Backgammon Position ID, a GNU Backgammon
``PositionID:MatchID`` pair or an XGID (``XGID=...``). The dice of a pair or an XGID
are the first roll of ``rollout`` and must be DICE of ``moves``; ``eval`` and
``cube`` refuse a position with the dice rolled.
Bad arguments print one line naming the problem and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys

import numpy as np

from . import __version__
from .engine import ENGINES
from .matchstate import parse_game
from .plays import legal_plays, parse_dice
from .position import Position
from .rollout import DEFAULT_POLICY, POLICIES, PROBABILITY_KEYS, normal_quantile, rollout

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


_POSITION_HELP = "'start', a Position ID, a GNU PositionID:MatchID pair or an XGID"
_ENGINE_HELP = "the compiled core (default) or the pure-Python reference; same numbers"

#: What each policy of fastbg.rollout.POLICIES is, for the help; a policy missing here is
#: still offered, by its name.
_POLICY_TEXT = {
    "pubeval": "Tesauro's pubeval",
    "random": "a uniformly random legal play",
    "nn": "the shipped neural network's best play at 0 ply, about 20x slower than pubeval",
    "nn-1ply": "the network's 8 best 0-ply plays, each scored by the average over the "
               "opponent's 21 rolls of its best 0-ply reply; thousands of times slower than "
               "pubeval, a few games per second",
}


def _policy_help(default: str = DEFAULT_POLICY) -> str:
    return "; ".join(f"{p} = {_POLICY_TEXT.get(p, 'see fastbg.rollout')}"
                     + (" (default)" if p == default else "") for p in POLICIES)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fastbg", description="Backgammon simulation engine: legal plays and Monte Carlo rollouts.")
    p.add_argument("--version", action="version", version=f"fastbg {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("show", help="board diagram, pip counts and IDs of a position")
    s.add_argument("position", metavar="POSITION", help=_POSITION_HELP + " (with the cube and "
                   "score of the last two)")

    m = sub.add_parser("moves", help="every legal play for a roll")
    m.add_argument("position", metavar="POSITION", help=_POSITION_HELP + " (rolled dice in it "
                   "must be DICE)")
    m.add_argument("dice", metavar="DICE", nargs="+", help="the roll: 31, 3-1 or 3 1")
    m.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the compiled core (default) or the pure-Python reference")
    m.add_argument("--json", action="store_true", help="machine-readable output")

    r = sub.add_parser("rollout", help="Monte Carlo rollout of a position")
    r.add_argument("position", metavar="POSITION", nargs="?", default="start",
                   help="'start' (default), a Position ID, a GNU PositionID:MatchID pair or an "
                        "XGID; dice rolled in the last two are the first roll")
    r.add_argument("--games", "-n", type=_positive_int, default=10_000, help="games to play (default 10000)")
    r.add_argument("--seed", type=_seed, default=None, help="root seed (default: fresh entropy, reported)")
    r.add_argument("--workers", "-w", type=_positive_int, default=None, help="threads (default: one per CPU)")
    r.add_argument("--policy", choices=POLICIES, default=DEFAULT_POLICY,
                   help="how both sides play: " + _policy_help())
    r.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the compiled core (default) or the pure-Python reference; same numbers")
    r.add_argument("--dice", type=_dice_arg, default=None, help="fix the first roll, e.g. 31")
    r.add_argument("--opening", dest="opening", action="store_true", default=None,
                   help="begin with the opening roll (default for 'start' without --dice)")
    r.add_argument("--no-opening", dest="opening", action="store_false",
                   help="the player on roll rolls normally, doubles included")
    r.add_argument("--cubeful", action="store_true",
                   help="play the cube in every game: before each roll the player who may "
                        "double decides by Janowski's model on the network's 0-ply "
                        "probabilities, the opponent takes or passes; reports the cubeful "
                        "equity (money) or match winning chances (match play)")
    r.add_argument("--x", type=_number_arg, default=None, metavar="X",
                   help="with --cubeful: cube efficiency in [0, 1] for every decision "
                        "(default: GNU Backgammon's by position, 0 on the last roll)")
    _add_state_options(r)
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")

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

    e = sub.add_parser("eval", help="the neural network's five probabilities and equity (0-ply)")
    e.add_argument("position", metavar="POSITION",
                   help=_POSITION_HELP + ", before the roll (no dice rolled)")
    e.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the network's forward pass in the compiled core (default) or the "
                        "pure-Python reference; same numbers")
    e.add_argument("--json", action="store_true", help="machine-readable output")

    _add_cube_parser(sub)
    _add_table_parsers(sub)
    p.commands = sub.choices  # the subcommands' parsers, by name
    return p


def _cmd_eval(args) -> int:
    from .nn import evaluate, network_info

    pos, _, dice = parse_game(args.position)
    if dice is not None:
        raise ValueError(
            f"POSITION has the dice rolled ({dice[0]}-{dice[1]}): eval values a position "
            "before the roll; give it before the roll (dice 00 in an XGID), or list the plays "
            "with 'fastbg moves'")
    ev = evaluate(pos, engine=args.engine)
    info = network_info()
    if args.json:
        print(json.dumps({"position_id": pos.to_position_id(), "engine": args.engine,
                          **{k: ev[k] for k in (*PROBABILITY_KEYS, "equity")},
                          "network": {k: info.get(k) for k in ("sha256", "hidden", "games_trained")}}))
        return 0
    print(f"0-ply evaluation of {pos.to_position_id()} by fastbg's network "
          f"({info.get('hidden')} hidden units, {info.get('games_trained', 0):,} self-play games)")
    print("cubeless, for the player on roll before rolling\n")
    for key in PROBABILITY_KEYS:
        print(f"  {key.replace('_', ' '):<18}{ev[key]:8.4f}")
    print(f"  {'cubeless equity':<18}{ev['equity']:+8.4f}")
    return 0


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
    from .position import diagram

    text = args.position.strip()
    if not (_is_xgid(text) or ":" in text):  # 'start' or a Position ID: no state
        pos = Position.parse(text)
        if not pos.board.any():
            raise ValueError(f"{text}: both sides have borne off all their checkers, which "
                             "no game can reach")
        print(pos)
        return 0
    try:
        pos, state, dice = parse_game(text)
    except ValueError as exc:
        # parse_game refuses a bad ID or an impossible state, as every command does, and
        # also a pending double or resignation (it reads positions to roll or play).
        # Only the last is shown: the board and the state before the offer.
        pending = _pending_offer(text)
        if pending is None:
            raise
        pos, state, offer = pending
        print(diagram(pos, state=state))
        print(f" {_describe_state(state)}; {offer} (the Match ID and XGID above are "
              "the position before it)")
        return 0
    print(diagram(pos, state=state, dice=dice))
    print(f" {_describe_state(state)}" + (f"; rolled {dice[0]}-{dice[1]}" if dice else
                                          "; to roll"))
    return 0


def _pending_offer(text: str):
    """Position, state and a description of the double or resignation pending in an
    XGID or GNU Backgammon ID pair, or ``None`` when none is pending.

    Raises
    ------
    ValueError
        If the ID is bad or its state impossible (the decoder's message).
    """
    from .positionid import decode_gnubg_id, xgid_to_game

    head = text.split(":", 1)[0].strip()
    if _is_xgid(text) or len(head) == 26:
        game = xgid_to_game(text)
        offer = {"D": "the player on roll has doubled (D): the opponent takes or passes",
                 "B": "the player on roll has doubled and the opponent beavered (B)",
                 "R": "the player on roll has doubled, the opponent beavered and the "
                      "player raccooned (R)"}.get(game.cube_action)
        return None if offer is None else (Position(game.board), game.state, offer)
    if len(head) == 14:
        board, mid = decode_gnubg_id(text)
        if mid.double_offered:
            offer = "the player on roll has doubled: the opponent takes or passes"
        elif mid.resign:
            kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[mid.resign]
            offer = f"a resignation ({kind}) is offered"
        else:
            return None
        return Position(board), mid.state, offer
    return None


def _cmd_moves(args) -> int:
    pos, _, rolled = parse_game(args.position)
    dice = parse_dice(" ".join(args.dice))
    if rolled is not None and sorted(rolled) != sorted(dice):
        raise ValueError(f"POSITION has {rolled[0]}-{rolled[1]} rolled but DICE is "
                         f"{dice[0]}-{dice[1]}: give the same roll")
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


def _run_rollout(pos, args, **options):
    """``rollout(pos, args.games, ...)`` with the command's seed, workers, policy and engine,
    under a tqdm progress bar on stderr unless ``--no-progress``."""
    bar = None
    progress = None
    if not args.no_progress:  # tqdm shows nothing when stderr is not a terminal
        from tqdm import tqdm

        bar = tqdm(total=args.games, unit="game", unit_scale=True, file=sys.stderr,
                   disable=None, dynamic_ncols=True, leave=False)
        progress = bar.update
    try:
        return rollout(pos, args.games, seed=args.seed, workers=args.workers, policy=args.policy,
                       engine=args.engine, progress=progress, **options)
    finally:
        if bar is not None:
            bar.close()


_STATE_OPTIONS = ("match_length", "score", "cube", "owner", "max_cube", "crawford", "jacoby",
                  "beaver", "met", "x")


def _cmd_rollout(args) -> int:
    if args.cubeful:
        return _cmd_cubeful_rollout(args)
    given = [k for k in _STATE_OPTIONS if getattr(args, k) is not None]
    if given:
        raise ValueError(f"--{given[0].replace('_', '-')} is for cubeful rollouts: add --cubeful")
    pos, _, dice = parse_game(args.position)
    if dice is None:
        dice = args.dice
    elif args.dice is not None and sorted(args.dice) != sorted(dice):
        raise ValueError(f"POSITION has {dice[0]}-{dice[1]} rolled but --dice is "
                         f"{args.dice[0]}-{args.dice[1]}: give one roll (or the same)")
    res = _run_rollout(pos, args, dice=dice, opening=args.opening)
    if res.games == 0:
        print("interrupted before any game finished; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        print(_format_table(res))
    return EXIT_INTERRUPTED if res.interrupted else 0


def _cmd_cubeful_rollout(args) -> int:
    from .cubeful import cubeful_rollout

    if args.dice is not None:
        raise ValueError("--dice cannot be used with --cubeful: the cube is turned before "
                         "the first roll")
    if args.beaver:
        raise ValueError("--beaver is not played in cubeful rollouts yet")
    pos, state = _cube_state(args)
    if args.x is not None and not 0 <= args.x <= 1:
        raise ValueError(f"--x must be in [0, 1], got {args.x}")
    bar = None
    progress = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=args.games, unit="game", unit_scale=True, file=sys.stderr,
                   disable=None, dynamic_ncols=True, leave=False)
        progress = bar.update
    try:
        res = cubeful_rollout(pos, args.games, seed=args.seed, workers=args.workers,
                              policy=args.policy, engine=args.engine, state=state, x=args.x,
                              jacoby=state.jacoby, opening=args.opening, progress=progress,
                              met=None if state.is_money else (args.met or None))
    finally:
        if bar is not None:
            bar.close()
    if res.games == 0:
        print("interrupted before any game finished; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(_finite(res.to_dict()), indent=2))
    else:
        print(_format_cubeful(res, pos, state))
    return EXIT_INTERRUPTED if res.interrupted else 0


def _format_cubeful(res, pos, state) -> str:
    z = normal_quantile(0.975)
    lines = [f"Cubeful rollout of {pos.to_position_id()}: {res.games:,} games"
             + ("  (INTERRUPTED: the finished games only)" if res.interrupted else ""),
             _describe_state(state),
             f"policy {res.policy} (checker play), cube decisions by Janowski's model on the "
             f"network's 0-ply probabilities, x = "
             + ("GNU Backgammon's default by position (0 on the last roll)" if res.x is None
                else f"{res.x:g}"),
             f"engine {res.engine}, workers {res.workers}, seed {res.seed}"
             + (", opening roll" if res.opening else ""), "",
             "                      estimate   std.err    95% confidence interval"]
    if not state.is_money:
        lo, hi = res.mwc - z * res.mwc_stderr, res.mwc + z * res.mwc_stderr
        lines.append(f"  match winning chance {res.mwc:8.4f}  {res.mwc_stderr:8.4f}   "
                     f"[{lo:.4f}, {hi:.4f}]")
    lo, hi = res.equity - z * res.stderr, res.equity + z * res.stderr
    label = "cubeful equity" if state.is_money else "equity (EMG)"
    lines.append(f"  {label:<20}{res.equity:+8.4f}  {res.stderr:8.4f}   [{lo:+.4f}, {hi:+.4f}]")
    lines.append("  (points per game per unit of the starting cube)" if state.is_money else
                 "  (MWC as a money equity, per unit of the starting cube)")
    lines += ["", f"  doubled in {res.doubled:.1%} of games, passed in {res.passed:.1%}; "
              f"mean final cube {res.mean_cube:.2f}", "  results:"]
    lines += [f"    {k:<18}{v:8.4f}" for k, v in res.outcomes.items()]
    lines += ["", f"  {res.seconds:.2f} s, {res.games_per_second:,.0f} games/s"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Cube decisions (`fastbg cube`) and match equity tables (`met`, `takepoints`,
# `gammon-values`)
# ---------------------------------------------------------------------------------------

#: Games of a `fastbg cube` rollout unless --games says otherwise: about ten seconds on
#: two cores with the network, standard errors of about 0.0035 on the win probability.
CUBE_GAMES = 20_000

#: Largest away score `fastbg met` shows unless --length says otherwise.
MET_LENGTH = 15

#: Cube values of the `fastbg takepoints` table (each doubled to twice its value).
TAKEPOINT_CUBES = (1, 2, 4)

#: Step of the numerical derivatives of the match-play equities (see _gradient).
_STEP = 1e-6

_BIAS_NOTE = (
    "The probabilities come from a cubeless rollout in which one policy plays both sides. "
    "The policy (the network, nn, by default) plays far from perfectly, so the probabilities, and "
    "the decision, carry its bias; the standard errors measure only the luck of the dice."
)

_CUBE_DESCRIPTION = (
    "Roll POSITION out cubelessly (the player on roll rolls normally, doubles included), "
    "then value No double, Double/take and Double/pass by Janowski's cubeful model (money "
    "play: equity per unit of the current cube; match play: match winning chances from the "
    "match equity table, and their money equivalents, EMG), name the proper action and say "
    "how sure it is: by how many standard errors of the difference the chosen alternative "
    "beats the next best. " + _BIAS_NOTE
)

_CUBE_EPILOG = (
    "State: an XGID or a GNU Backgammon PositionID:MatchID pair carries cube, owner, score "
    "and rules; 'start' and a bare Position ID mean money play with a centred cube. Each "
    "option given replaces the corresponding field of POSITION's state (the state used is "
    "printed); --cube 1 alone also centres the cube, and switching between money and match "
    "play with --match-length drops the other kind's fields (score and Crawford, or Jacoby "
    "and beavers). The combined state must be possible, else one line names the problem "
    "and the status is 2; so is a --cube above the cube limit (an XGID's max cube field, "
    "else 1024), which only --max-cube raises. A POSITION with the dice already rolled is "
    "refused: the cube is turned before the roll. When the player on roll may not double "
    "(the opponent's cube, the Crawford game, a dead cube in a match, a cube at its limit) "
    "only No double is valued, and the output says why. A dead cube has x = 0 unless --x "
    "is given: a cube at its limit, or the last roll (a race in which the opponent bears "
    "off its last checkers with every roll on its next turn)."
)


def _whole_arg(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _non_negative_int(text: str) -> int:
    v = _whole_arg(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 (money play) or more")
    return v


def _number_arg(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def _score_arg(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(-?[0-9]+)\s*-\s*(-?[0-9]+)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"score {text!r} is not A-B (points won so far, the player on roll's first)")
    a, b = int(m.group(1)), int(m.group(2))
    negative = [v for v in (a, b) if v < 0]
    if negative:
        raise argparse.ArgumentTypeError(
            f"score {text!r} is invalid: {negative[0]} is negative; a score is the points "
            "each side has won so far, 0 or more, written A-B with the player on roll's "
            "first (e.g. 2-4)")
    return a, b


def _add_state_options(parser) -> None:
    """The cube and match options of `fastbg cube` and `fastbg rollout --cubeful`."""
    from .cube import CUBE_OWNERS
    from .matchstate import DEFAULT_MAX_CUBE
    from .met import DEFAULT_MET, SHIPPED_METS

    g = parser.add_argument_group("cube and match (each replaces POSITION's field)")
    g.add_argument("--match-length", type=_non_negative_int, default=None, metavar="N",
                   help="points to win the match; 0 is money play (the default)")
    g.add_argument("--score", type=_score_arg, default=None, metavar="A-B",
                   help="points won so far (each 0 or more), the player on roll's first")
    g.add_argument("--cube", type=_whole_arg, default=None, metavar="V",
                   help="cube value: 1 (centred), 2, 4, ...")
    g.add_argument("--owner", choices=CUBE_OWNERS, default=None,
                   help="who owns the cube, from the player on roll's view (a 1-cube is "
                        "centred; a centred cube above 1, from automatic doubles, only in "
                        "money play)")
    g.add_argument("--max-cube", type=_whole_arg, default=None, metavar="V",
                   help="largest cube value allowed, a power of two (default: an XGID's max "
                        f"cube field, else {DEFAULT_MAX_CUBE}); no double from a cube at the "
                        "limit")
    g.add_argument("--crawford", action=argparse.BooleanOptionalAction, default=None,
                   help="this game is the Crawford game (one side 1-away, nobody may double); "
                        "a game with a side 1-away is otherwise post-Crawford")
    g.add_argument("--jacoby", action=argparse.BooleanOptionalAction, default=None,
                   help="money play: gammons count single while the cube is centred")
    g.add_argument("--beaver", action=argparse.BooleanOptionalAction, default=None,
                   help="money play: beavers allowed (changes the wording of a take)")
    g.add_argument("--met", default=None, metavar="NAME_OR_PATH",
                   help=f"match equity table: {', '.join(SHIPPED_METS)} or a GNU Backgammon "
                        f"MET XML file (default {DEFAULT_MET}; match play only)")


def _add_cube_parser(sub) -> None:
    from .cube import CUBE_OWNERS
    from .matchstate import DEFAULT_MAX_CUBE
    from .met import DEFAULT_MET, SHIPPED_METS

    c = sub.add_parser(
        "cube", help="cube decision of a position from a cubeless rollout (money or match)",
        description=_CUBE_DESCRIPTION, epilog=_CUBE_EPILOG)
    c.add_argument("position", metavar="POSITION",
                   help="'start', a Position ID, a GNU Backgammon PositionID:MatchID pair or "
                        "an XGID (cube and score are taken from the last two)")
    c.add_argument("--games", "-n", type=_positive_int, default=CUBE_GAMES,
                   help=f"games of the cubeless rollout (default {CUBE_GAMES})")
    c.add_argument("--seed", type=_seed, default=None, help="root seed (default: fresh entropy, reported)")
    c.add_argument("--workers", "-w", type=_positive_int, default=None, help="threads (default: one per CPU)")
    c.add_argument("--policy", choices=POLICIES, default=DEFAULT_POLICY,
                   help="how both sides play in the cubeless rollout: " + _policy_help()
                        + "; the weaker the policy, the more biased the probabilities")
    c.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the compiled core (default) or the pure-Python reference; same numbers")
    c.add_argument("--x", type=_number_arg, default=None, metavar="X",
                   help="cube efficiency in [0, 1] (0 dead cube, 1 fully live; default GNU "
                        "Backgammon's: 0.68 in contact, 0.6 in bear-offs, 0.6 to 0.7 by the "
                        "pip count of the player on roll in other races; 0 for a dead cube: "
                        "on the last roll and at the cube limit)")
    _add_state_options(c)
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_table_parsers(sub) -> None:
    from .met import DEFAULT_MET, SHIPPED_METS

    def common(q):
        q.add_argument("--met", default=DEFAULT_MET, metavar="NAME_OR_PATH",
                       help=f"match equity table: {', '.join(SHIPPED_METS)} (default "
                            f"{DEFAULT_MET}) or a GNU Backgammon MET XML file")
        fmt = q.add_mutually_exclusive_group()
        fmt.add_argument("--csv", action="store_true",
                         help="comma-separated values: a header, then one record a line")
        fmt.add_argument("--json", action="store_true", help="machine-readable output")

    m = sub.add_parser(
        "met", help="the match equity table: pre-Crawford MWC for away scores 1..N and the "
                    "post-Crawford row",
        description="Match winning chances at the start of a game from the table in use: "
                    "pre-Crawford for each away score of both sides (1-away is the Crawford "
                    "game), and post-Crawford, the trailer's against a 1-away leader.")
    m.add_argument("--length", type=_positive_int, default=None, metavar="N",
                   help=f"largest away score (default {MET_LENGTH}, or the table's length if "
                        "shorter)")
    m.add_argument("--post-crawford", action="store_true", help="only the post-Crawford row")
    common(m)

    t = sub.add_parser(
        "takepoints", help="take points at every score 1- to N-away for 1-, 2- and 4-cubes",
        description="The taker's least game winning chance for a take, dead cube (the game "
                    "is played out at the doubled cube) and fully live cube (the taker's "
                    "redouble is efficient: GNU Backgammon's TP(live, n) = TP(dead, n) "
                    "(1 - TP(live, 2n))), for a gammonless game, at every score with both "
                    "sides 1- to N-away, for doubles of a 1-, 2- and 4-cube. A double by a "
                    "side whose single win at the cube already wins the match is pointless "
                    "(its cube is dead): '-' (null). Scores with a side at 1-away are "
                    "post-Crawford.")
    t.add_argument("--length", type=_positive_int, required=True, metavar="N",
                   help="largest away score")
    common(t)

    v = sub.add_parser(
        "gammon-values", help="gammon values (win and loss) at every score 1- to N-away",
        description="What winning a gammon adds, and what losing one costs, in units of the "
                    "swing between winning and losing a single game, from the match "
                    "equity table (0.5 and 0.5 in money play), for the player needing the "
                    "row's points against the column's, with the cube at V.")
    v.add_argument("--length", type=_positive_int, required=True, metavar="N",
                   help="largest away score")
    v.add_argument("--cube", type=_whole_arg, default=1, metavar="V",
                   help="cube value the game is played for (default 1)")
    common(v)


# -- the state of a cube decision --------------------------------------------------------

def _cube_state(args):
    """Position and MatchState of `fastbg cube`: POSITION's state with the options applied."""
    from .matchstate import MatchState

    pos, base, dice = parse_game(args.position)
    if dice is not None:
        raise ValueError(
            f"POSITION has the dice rolled ({dice[0]}-{dice[1]}): the cube is turned before "
            "the roll; give the position before it (dice 00 in an XGID)")
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
    if args.match_length is not None and (args.match_length == 0) != base.is_money:
        # From money to match play or back: the other kind's fields do not carry over.
        fields.update(score=(0, 0), crawford=False, holland=False, jacoby=False, beaver=False)
    given = {"match_length": args.match_length, "score": args.score, "cube": args.cube,
             "cube_owner": args.owner, "crawford": args.crawford, "jacoby": args.jacoby,
             "beaver": args.beaver, "max_cube": args.max_cube}
    given = {k: v for k, v in given.items() if v is not None}
    fields.update(given)
    if args.cube is not None:
        if args.owner is None and args.cube == 1:
            fields["cube_owner"] = "centred"
        limit = fields["max_cube"]
        if args.cube > limit and limit >= 1 and limit & (limit - 1) == 0:
            # The limit is never raised behind the user's back: an XGID above its own max
            # cube is refused too. It is raised explicitly with --max-cube.
            source = ("--max-cube" if args.max_cube is not None
                      else "the XGID's max cube field" if _is_xgid(args.position)
                      else "the default; GNU Backgammon IDs and 'start' carry no limit")
            raise ValueError(f"--cube {args.cube} is above the cube limit {limit} ({source})"
                             + ("" if args.max_cube is not None
                                else "; give --max-cube to raise it"))
    try:
        state = MatchState(**fields)
    except ValueError as exc:
        carried = base != MatchState()
        raise ValueError(f"{exc}" + (" (POSITION's state with the options given)"
                                     if carried and given else "")) from None
    if args.met is not None and state.is_money:
        raise ValueError("--met is for match play: give --match-length (or a POSITION with "
                         "a match score)")
    return pos, state


def _is_xgid(text: str) -> bool:
    return text.strip().upper().startswith("XGID=")


def _efficiency(pos, x, state=None) -> tuple[float, str]:
    """Cube efficiency and how it was chosen: given, 0 for a dead cube (the last roll, see
    :func:`fastbg.cube.is_last_roll`, or a cube at its limit, which nobody may turn
    again), else GNU Backgammon's default for the position's class."""
    from .cube import LAST_ROLL_CUBE_EFFICIENCY, default_cube_efficiency, is_last_roll

    if x is not None:
        return x, "given"
    if state is not None and state.cube >= state.max_cube:
        return 0.0, f"cube at its limit ({state.max_cube}): dead cube"
    if not pos.is_race:
        kind = "contact"
    elif is_last_roll(pos):
        return LAST_ROLL_CUBE_EFFICIENCY, "last roll: dead cube"
    elif not pos.board[:, 6:].any():
        kind = "bear-off"
    else:
        kind = f"race, {pos.pip_counts[0]} pips"
    return default_cube_efficiency(pos), f"GNU Backgammon's default for {kind}"


def _describe_state(state, table=None) -> str:
    owner = {"centred": "centred", "player": "owned by the player on roll",
             "opponent": "owned by the opponent"}[state.cube_owner]
    if state.is_money:
        rules = [r for r, on in (("Jacoby rule", state.jacoby), ("beavers", state.beaver)) if on]
        return (f"money play, cube {state.cube} {owner}"
                + (f", {' and '.join(rules)}" if rules else ""))
    a, b = state.away
    phase = (", Crawford game" if state.crawford
             else ", no Crawford game in a 1-point match, dead cube" if state.match_length == 1
             else ", double match point" if a == b == 1
             else ", post-Crawford" if state.post_crawford else "")
    return (f"{state.match_length}-point match, score {state.score[0]}-{state.score[1]} "
            f"({a}-away/{b}-away){phase}, cube {state.cube} {owner}"
            + ("" if table is None else f", table {table.name or table.source}"))


# -- standard errors ---------------------------------------------------------------------

def _gradient(f, q) -> np.ndarray:
    """Numerical gradient of ``f`` at the five probabilities ``q``.

    Central differences with step :data:`_STEP`; one-sided where a step would leave the
    valid probabilities (``f`` raises ValueError there), zero where neither side is valid
    (then the probability has no sampling variance in that direction either).
    """
    q = np.asarray(q, dtype=np.float64)
    f0 = f(q)
    g = np.zeros(5)
    for i in range(5):
        vals = {}
        for sign in (1, -1):
            v = q.copy()
            v[i] += sign * _STEP
            try:
                vals[sign] = f(v)
            except ValueError:
                pass
        if len(vals) == 2:
            g[i] = (vals[1] - vals[-1]) / (2 * _STEP)
        elif 1 in vals:
            g[i] = (vals[1] - f0) / _STEP
        elif -1 in vals:
            g[i] = (f0 - vals[-1]) / _STEP
    return g


def _se(g, cov) -> float:
    var = float(g @ cov @ g)
    if var != var:
        return float("nan")
    return math.sqrt(var) if var > 0 else 0.0


def _margin(better: str, worse: str, diff: float, se: float) -> dict:
    """How far the better of two alternatives is ahead, in standard errors of the difference."""
    if se != se:
        z = float("nan")
    elif se > 0:
        z = diff / se
    else:
        z = math.inf if diff > 0 else 0.0
    return {"choice": better, "over": worse, "difference": diff, "stderr": se, "z": z}


def _margins(nd, dt, dp, se_nd, se_dt, se_dt_minus_nd) -> dict:
    """The taker's choice (take if Double/take is worse for the doubler than Double/pass)
    and the doubler's (double if the double, answered that way, is worth at least No
    double), with the standard errors of the differences. Double/pass has no sampling
    error, so se(dp - dt) = se(dt) and se(dp - nd) = se(nd)."""
    take = (_margin("take", "pass", dp - dt, se_dt) if dt < dp
            else _margin("pass", "take", dt - dp, se_dt))
    doubled = min(dt, dp)
    se_diff = se_dt_minus_nd if dt < dp else se_nd
    double = (_margin("double", "no double", doubled - nd, se_diff) if nd <= doubled
              else _margin("no double", "double", nd - doubled, se_diff))
    return {"double": double, "take": take}


# -- the decision ------------------------------------------------------------------------

def _money_decision(q, cov, state, x) -> dict:
    from .cube import ACTIONS, cubeful_equity, gammon_values, money_cube_decision

    if not state.may_double:
        def f(v):
            return cubeful_equity(v, x=x, cube_owner=state.cube_owner, jacoby=state.jacoby)

        W, L = gammon_values(q)
        nd = f(q)
        nan = float("nan")
        action = ACTIONS[0]
        if state.cube_owner == "player":
            action = action.replace("double", "redouble")
        return {"action": action, "can_double": False,
                "why_not": state.why_not_double, "nd": nd, "dt": nan, "dp": nan,
                "stderr": {"nd": _se(_gradient(f, q), cov), "dt": nan, "dp": nan},
                "equity": nd, "take_point": nan, "cash_point": nan, "take_point_dead": nan,
                "take_point_live": nan, "W": W, "L": L, "margins": None, "z": nan}
    d = money_cube_decision(q, x=x, cube_owner=state.cube_owner, jacoby=state.jacoby,
                            beaver=state.beaver, covariance=cov)
    se = d.stderr
    margins = _margins(d.nd, d.dt, d.dp, se["nd"], se["dt"], se["dt_minus_nd"])
    return {"action": d.action, "can_double": True, "why_not": None,
            "nd": d.nd, "dt": d.dt, "dp": d.dp,
            "stderr": {"nd": se["nd"], "dt": se["dt"], "dp": se["dp"]},
            "equity": d.equity, "take_point": d.take_point, "cash_point": d.cash_point,
            "take_point_dead": d.take_point_dead, "take_point_live": d.take_point_live,
            "W": d.W, "L": d.L, "margins": margins,
            "z": min(margins["double"]["z"], margins["take"]["z"])}


def _match_decision(q, cov, state, x, table) -> dict:
    from .cube import ACTIONS
    from .matchcube import cubeful_mwc, match_cube_decision

    a, b = state.away
    c, owner = state.cube, state.cube_owner
    d = match_cube_decision(q, state.match_length, state.score, cube=c, owner=owner,
                            crawford=state.crawford, met=table, x=x)

    def f_nd(v):
        return cubeful_mwc(v, a, b, cube=c, owner=owner, crawford=state.crawford, met=table, x=x)

    def f_dt(v):
        return cubeful_mwc(v, a, b, cube=2 * c, owner="opponent", met=table, x=x)

    def f_cubeless(v):
        return table.cubeless_mwc(v, a, b, c)

    g_nd = _gradient(f_nd, q)
    r = table.result_mwc(a, b, c)
    to_emg = 2.0 / (r[0] - r[3])  # EMG is linear in MWC: 2 (MWC - lose) / (win - lose) - 1
    nan = float("nan")
    se = {"nd": _se(g_nd, cov), "dt": nan, "dp": nan,
          "cubeless_mwc": _se(_gradient(f_cubeless, q), cov)}
    margins, z = None, nan
    # MatchState.may_double is matchcube's rule (no Crawford game, not the opponent's cube,
    # not a dead cube) plus the cube limit, which the match equity model does not know.
    can_double = state.may_double
    if can_double:
        g_dt = _gradient(f_dt, q)
        se.update(dt=_se(g_dt, cov), dp=0.0)
        margins = _margins(d.nd, d.dt, d.dp, se["nd"], se["dt"], _se(g_dt - g_nd, cov))
        z = min(margins["double"]["z"], margins["take"]["z"])
        values = {k: getattr(d, k) for k in ("action", "dt", "dp", "dt_emg", "dp_emg", "best",
                                             "take_point", "cash_point", "take_point_dead",
                                             "take_point_live")}
    else:
        action = ACTIONS[0].replace("double", "redouble") if owner == "player" else ACTIONS[0]
        values = {"action": action, "dt": nan, "dp": nan, "dt_emg": nan, "dp_emg": nan,
                  "best": d.nd, "take_point": nan, "cash_point": nan, "take_point_dead": nan,
                  "take_point_live": nan}
    for k in ("nd", "dt", "dp"):
        se[f"{k}_emg"] = se[k] * to_emg
    out = {"action": values["action"], "can_double": can_double,
           "why_not": state.why_not_double, "nd": d.nd, "dt": values["dt"], "dp": values["dp"],
           "nd_emg": d.nd_emg, "dt_emg": values["dt_emg"], "dp_emg": values["dp_emg"],
           "stderr": se, "mwc": values["best"], "cubeless_mwc": d.cubeless_mwc,
           "take_point": values["take_point"], "cash_point": values["cash_point"],
           "take_point_dead": values["take_point_dead"],
           "take_point_live": values["take_point_live"],
           "margins": margins, "z": z}
    for m in (margins or {}).values():  # the same margins in EMG, for readers of equities
        m["difference_emg"] = m["difference"] * to_emg
        m["stderr_emg"] = m["stderr"] * to_emg
    return out


def _decide(q, cov, state, x, table) -> dict:
    q = np.asarray(q, dtype=np.float64)
    if state.is_money:
        return _money_decision(q, cov, state, x)
    return _match_decision(q, cov, state, x, table)


def _finite(obj):
    """NaN and infinities as None, so the JSON is standard."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _z_text(z: float) -> str:
    if z != z:
        return "an unknown number of SE (too few games for a standard error)"
    if math.isinf(z):
        return "certain (no sampling error)"
    return f"{z:.1f} SE"


_STDERR_METHOD = {
    "money": "delta method with the exact gradient of Janowski's formulas "
             "(fastbg.cube.money_cube_decision) and the rollout's covariance of the five "
             "probabilities",
    "match": "delta method with a numerical gradient (central differences, step 1e-6, "
             "one-sided at the edges of the valid probabilities) and the rollout's "
             "covariance of the five probabilities; EMG errors scaled from MWC errors",
}


def _cmd_cube(args) -> int:
    from .cube import probability_covariance
    from .met import DEFAULT_MET

    pos, state = _cube_state(args)
    if pos.game_over:
        raise ValueError("the game is over in this position: a side has borne off all 15 checkers")
    table = None if state.is_money else _load_met(args.met or DEFAULT_MET)
    x, x_source = _efficiency(pos, args.x, state)
    # Check every option with the library's own errors before spending the rollout.
    _decide((0.5, 0.15, 0.01, 0.15, 0.01), np.eye(5) * 1e-6, state, x, table)

    res = _run_rollout(pos, args, opening=False)
    if res.games == 0:
        print("interrupted before any game finished; nothing to report", file=sys.stderr)
        return EXIT_INTERRUPTED
    q = [getattr(res, k) for k in PROBABILITY_KEYS]
    cov = probability_covariance(res.counts)
    d = _decide(q, cov, state, x, table)
    mode = "money" if state.is_money else "match"
    if args.json:
        out = res.to_dict()
        out.update(
            mode=mode,
            xgid=state.to_xgid(pos),
            state={"match_length": state.match_length, "score": list(state.score),
                   "away": list(state.away) if state.away else None, "cube": state.cube,
                   "cube_owner": state.cube_owner, "crawford": state.crawford,
                   "post_crawford": state.post_crawford, "jacoby": state.jacoby,
                   "beaver": state.beaver},
            x=x, x_source=x_source,
            met=None if table is None else (table.name or table.source),
            unit="equity per unit of the current cube" if state.is_money
                 else "match winning chance (EMG: equity per unit of the current cube)",
            decision=d, stderr_method=_STDERR_METHOD[mode], note=_BIAS_NOTE,
        )
        print(json.dumps(_finite(out), indent=2))
    else:
        print(_format_cube(res, pos, state, table, x, x_source, d))
    return EXIT_INTERRUPTED if res.interrupted else 0


def _format_cube(res, pos, state, table, x, x_source, d) -> str:
    label = {"win": "win", "win_gammon": "win gammon", "win_backgammon": "win backgammon",
             "lose_gammon": "lose gammon", "lose_backgammon": "lose backgammon"}
    head = "INTERRUPTED: " if res.interrupted else ""
    lines = [f"{head}Cube decision of {state.to_xgid(pos)} (Position ID {res.position_id})",
             f"{_describe_state(state, table)}",
             f"cubeless rollout: {res.games:,} games"
             + (f" of {res.games_requested:,} requested" if res.interrupted else "")
             + f", policy {res.policy} for both sides, engine {res.engine}, workers "
               f"{res.workers}, seed {res.seed}, {res.seconds:.2f} s",
             f"(biased by {res.policy}'s play: the standard errors cover only the dice)",
             "",
             f"  {'':<18} {'estimate':>9} {'std.err':>9}"]
    for key in PROBABILITY_KEYS:
        lines.append(f"  {label[key]:<18} {getattr(res, key):9.4f} {res.stderr[key]:9.4f}")
    lines.append(f"  {'cubeless equity':<18} {res.equity:+9.4f} {res.stderr['equity']:9.4f}")
    se = d["stderr"]
    if not state.is_money:
        lines.append(f"  {'cubeless MWC':<18} {d['cubeless_mwc']:9.4f} {se['cubeless_mwc']:9.4f}")
    lines.append("")
    redouble = state.cube_owner == "player"
    dbl = "Redouble" if redouble else "Double"
    names = (("nd", f"No {dbl.lower()}"), ("dt", f"{dbl}, take"), ("dp", f"{dbl}, pass"))
    rows = names if d["can_double"] else names[:1]
    if state.is_money:
        lines.append(f"Cubeful equity per unit of the current cube (Janowski, x = {x:.3g}, "
                     f"{x_source}):")
        lines.append(f"  {'':<18} {'equity':>9} {'std.err':>9}")
        for k, name in rows:
            lines.append(f"  {name:<18} {d[k]:+9.4f} {se[k]:9.4f}")
    else:
        lines.append(f"Cubeful match winning chances (Janowski's model for match play, "
                     f"x = {x:.3g}, {x_source}) and their money equivalents:")
        lines.append(f"  {'':<18} {'MWC':>9} {'std.err':>9} {'EMG':>9} {'std.err':>9}")
        for k, name in rows:
            lines.append(f"  {name:<18} {d[k]:9.4f} {se[k]:9.4f} {d[k + '_emg']:+9.4f} "
                         f"{se[k + '_emg']:9.4f}")
    lines.append("")
    if not d["can_double"]:
        lines.append(f"No cube decision: {d['why_not']}.")
        return "\n".join(lines)
    m = d["margins"]
    unit = "" if state.is_money else " MWC"
    lines.append(f"Proper action: {d['action']}   (sure to {_z_text(d['z'])})")
    for part in ("double", "take"):
        mm = m[part]
        choice, over = mm["choice"], mm["over"]
        if redouble:
            choice, over = (s.replace("double", "redouble") for s in (choice, over))
        lines.append(f"  {choice} rather than {over}: by {mm['difference']:.4f}{unit}, "
                     f"{_z_text(mm['z'])} (std.err of the difference {mm['stderr']:.4f})")
    tp = d["take_point"]
    lines.append(f"  opponent's take point {tp:.1%} (dead cube {d['take_point_dead']:.1%}, "
                 f"live {d['take_point_live']:.1%}); the player's cash point {1 - tp:.1%}"
                 + (f"; W {d['W']:.3f}, L {d['L']:.3f}" if state.is_money else ""))
    return "\n".join(lines)


# -- tables --------------------------------------------------------------------------------

def _print_csv(header, rows) -> None:
    import csv

    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)


def _grid(title: str, n: int, cell, width: int, corner: str) -> list[str]:
    """A square table of away scores 1..n: ``cell(row, col)`` is the text of one entry."""
    lines = [title, f"  {corner:>6} " + " ".join(f"{c:>{width}}" for c in range(1, n + 1))]
    for r in range(1, n + 1):
        lines.append(f"  {r:>6} " + " ".join(f"{cell(r, c):>{width}}" for c in range(1, n + 1)))
    return lines


def _table_name(table) -> str:
    return table.name or table.source


def _cmd_met(args) -> int:
    table = _load_met(args.met)
    n = args.length if args.length is not None else min(MET_LENGTH, table.length)
    if not args.post_crawford:
        _check_length(table, n)
    if n > table.post_crawford_length:
        raise ValueError(f"table {_table_name(table)!r} holds post-Crawford scores up to "
                         f"{table.post_crawford_length}-away; got --length {n}")
    post = [table.post_crawford_mwc(k) for k in range(1, n + 1)]
    pre = None
    if not args.post_crawford:
        pre = [[table.mwc(i, j) for j in range(1, n + 1)] for i in range(1, n + 1)]
    if args.json:
        out = {"met": _table_name(table), "description": table.description,
               "source": table.source, "length": n}
        if pre is not None:
            out["pre_crawford"] = pre
        out["post_crawford"] = post
        print(json.dumps(out, indent=2))
        return 0
    if args.csv:
        rows = []
        if pre is not None:
            rows += [("pre-crawford", i + 1, j + 1, v) for i, row in enumerate(pre)
                     for j, v in enumerate(row)]
        rows += [("post-crawford", k + 1, 1, v) for k, v in enumerate(post)]
        _print_csv(("table", "away", "away_opponent", "mwc"), rows)
        return 0
    lines = [f"Match equity table {_table_name(table)} ({table.source})"]
    if table.description:
        lines.append(table.description)
    if pre is not None:
        lines.append("")
        lines += _grid("Pre-Crawford: MWC (%) of the side needing the row's points against the "
                       "column's, at the start of a game (1-away: the Crawford game)",
                       n, lambda r, c: f"{100 * pre[r - 1][c - 1]:.1f}", 5, "away")
    lines.append("")
    lines.append("Post-Crawford: MWC (%) of the trailer needing n points against a 1-away leader")
    lines.append(f"  {'n':>6} " + " ".join(f"{k:>5}" for k in range(1, n + 1)))
    lines.append(f"  {'':>6} " + " ".join(f"{100 * v:5.1f}" for v in post))
    print("\n".join(lines))
    return 0


def _load_met(name):
    """:func:`fastbg.met.load_met`, with a file that cannot be read reported as bad input."""
    from .met import load_met

    try:
        return load_met(name)
    except OSError as exc:
        raise ValueError(f"cannot read the match equity table {name!r}: "
                         f"{exc.strerror or exc}") from None


def _check_length(table, n: int) -> None:
    if n > table.length:
        raise ValueError(f"table {_table_name(table)!r} holds scores up to {table.length}-away; "
                         f"got --length {n}")


def _cmd_takepoints(args) -> int:
    table = _load_met(args.met)
    n = args.length
    _check_length(table, n)
    records = []
    for cube in TAKEPOINT_CUBES:
        for taker in range(1, n + 1):
            for doubler in range(1, n + 1):
                if doubler <= cube:  # the doubler's cube is dead: no double to take
                    dead = live = None
                else:
                    dead = table.take_point(taker, doubler, cube)
                    live = table.take_point(taker, doubler, cube, live=True)
                records.append({"cube": cube, "away_taker": taker, "away_doubler": doubler,
                                "dead": dead, "live": live})
    if args.json:
        print(json.dumps({"met": _table_name(table), "length": n, "cubes": list(TAKEPOINT_CUBES),
                          "gammonless": True, "take_points": records}, indent=2))
        return 0
    keys = ("cube", "away_taker", "away_doubler", "dead", "live")
    if args.csv:
        _print_csv(keys, [["" if r[k] is None else r[k] for k in keys] for r in records])
        return 0
    at = {(r["cube"], r["away_taker"], r["away_doubler"]): r for r in records}

    def cell(cube):
        def text(taker, doubler):
            r = at[cube, taker, doubler]
            return "-" if r["dead"] is None else f"{100 * r['dead']:.1f}/{100 * r['live']:.1f}"
        return text

    lines = [f"Take points (%, the taker's game winning chance), dead/live cube, gammonless, "
             f"table {_table_name(table)}",
             "rows: the taker's away score; columns: the doubler's; '-': the doubler's cube "
             "is dead"]
    for cube in TAKEPOINT_CUBES:
        lines.append("")
        lines += _grid(f"{cube}-cube, doubled to {2 * cube}:", n, cell(cube), 9, "taker")
    print("\n".join(lines))
    return 0


def _cmd_gammon_values(args) -> int:
    table = _load_met(args.met)
    n = args.length
    _check_length(table, n)
    records = []
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            win, lose = table.gammon_values(a, b, args.cube)
            records.append({"away": a, "away_opponent": b, "cube": args.cube,
                            "win": win, "lose": lose})
    if args.json:
        print(json.dumps({"met": _table_name(table), "length": n, "cube": args.cube,
                          "gammon_values": records}, indent=2))
        return 0
    keys = ("away", "away_opponent", "cube", "win", "lose")
    if args.csv:
        _print_csv(keys, [[r[k] for k in keys] for r in records])
        return 0
    at = {(r["away"], r["away_opponent"]): r for r in records}
    lines = [f"Gammon values win/lose, cube {args.cube}, table {_table_name(table)} (money "
             "play: 0.50/0.50)",
             "rows: the player's away score; columns: the opponent's", ""]
    lines += _grid("", n, lambda a, b: f"{at[a, b]['win']:.2f}/{at[a, b]['lose']:.2f}", 9,
                   "away")[1:]
    print("\n".join(lines))
    return 0


_COMMANDS = {"show": _cmd_show, "moves": _cmd_moves, "rollout": _cmd_rollout,
             "perft": _cmd_perft, "bench": _cmd_bench, "cube": _cmd_cube, "met": _cmd_met,
             "takepoints": _cmd_takepoints, "gammon-values": _cmd_gammon_values,
             "eval": _cmd_eval}


#: An option value that argparse would take for an option because it starts with '-'
#: but which no option can be: '-' then a digit or a point ("-1-2", "-1e-3", "-.5").
_DASH_VALUE = re.compile(r"-[0-9.]")


def _join_dash_values(parser, argv: list[str]) -> list[str]:
    """``--opt VALUE`` as ``--opt=VALUE`` where VALUE starts with '-' and a digit.

    argparse reads such a VALUE as an option unless it is a plain negative number, and
    then reports the option as missing its argument ("--score -1-2": "expected one
    argument"). Joined, the value reaches the option's own check, whose message names
    the real problem. Only options of the subcommand that take one value are joined
    (abbreviations included, as argparse accepts them), and nothing after ``--``.
    """
    start = next((k for k, a in enumerate(argv) if a in parser.commands), None)
    if start is None:
        return argv
    sub = parser.commands[argv[start]]
    options = {o: a for a in sub._actions for o in a.option_strings}
    out = argv[: start + 1]
    k = start + 1
    while k < len(argv):
        tok = argv[k]
        if tok == "--":
            out += argv[k:]
            break
        action = options.get(tok)
        if action is None and tok.startswith("--") and "=" not in tok:
            found = {options[o] for o in options if o.startswith(tok)}
            action = found.pop() if len(found) == 1 else None
        if (action is not None and action.nargs is None and k + 1 < len(argv)
                and _DASH_VALUE.match(argv[k + 1])):
            out.append(f"{tok}={argv[k + 1]}")
            k += 2
            continue
        out.append(tok)
        k += 1
    return out


def main(argv=None) -> int:
    """Entry point of the ``fastbg`` console script; returns the exit status."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # An XGID written without its prefix may start with '-' (an empty bar), which
    # argparse would read as an option: give it its prefix.
    argv = ["XGID=" + a if _BARE_XGID.match(a) else a for a in argv]
    argv = _join_dash_values(parser, argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        # argparse reports a subcommand's unknown arguments as the main program's; name
        # the subcommand, whose usage they break.
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
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
