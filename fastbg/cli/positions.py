"""``fastbg show``, ``moves`` and ``eval``: a position, its legal plays, the network's evaluation."""
from __future__ import annotations

import argparse


from ..engine import ENGINES
from ..formats import parse_dice
from ..game import Position, decode_gnubg_id, diagram, legal_plays, parse_game, xgid_to_game, PROBABILITY_KEYS
from ..game.families import FAMILY_NAMES, classify
from ..nn import CRASHED_BY, evaluate, network_info, weaker_families
from ..game.picture import save_board

from .common import (_ENGINE_HELP, _POSITION_HELP, _games, _is_xgid, _positive_int,
                     _whole_arg, add_no_progress_option, looks_like_position, print_json, roll_text,
                     second_position)
from ..rollouts import DEFAULT_POLICY
from ..rollouts.plays import FILTER_PRESETS
from .moves import moves_eval, moves_resume, moves_rollout
from .rollouts import add_prune_options, add_rollout_run_options, add_store_options
from .state import _add_state_options, _describe_state, state_given


def add_parsers(sub) -> None:
    """The ``show``, ``moves`` and ``eval`` commands."""
    s = sub.add_parser("show", help="board diagram, pip counts and IDs of a position")
    s.add_argument("position", metavar="POSITION", help=_POSITION_HELP + " (with the cube and "
                   "score of the last two)")
    add_no_progress_option(s)
    s.add_argument("--svg", metavar="FILE", default=None,
                   help="also draw the board into FILE as SVG (with the cube, score and pip "
                        "counts; needs matplotlib: pip install 'fastbg[plot]')")
    s.add_argument("--png", metavar="FILE", default=None, help="the same as PNG")
    s.add_argument("--json", action="store_true",
                   help="machine-readable output: the IDs, both sides' checkers, pip counts, the "
                        "cube and score, the dice, families")

    m = sub.add_parser("moves", help="every legal play for a roll; ranked (--eval) or rolled "
                       "out side by side (--rollout)")
    # (optional for --resume RUN, whose run has its own; refused there when given)
    m.add_argument("position", metavar="POSITION", nargs="?", default=None,
                   help=_POSITION_HELP + " (rolled dice in it must be DICE)")
    m.add_argument("dice", metavar="DICE", nargs="*", help="the roll: 31, 3-1 or 3 1 (may be "
                   "left out when POSITION is an XGID with the dice rolled)")
    m.add_argument("--engine", choices=ENGINES, default="cython", help=_ENGINE_HELP)
    how = m.add_mutually_exclusive_group()
    how.add_argument("--eval", action="store_true",
                     help="rank every play by the nn evaluator (0 ply, or --ply 1-3 with a move "
                          "filter: --filter), with its probabilities and equity")
    how.add_argument("--rollout", action="store_true",
                     help="roll out the candidate plays with the same dice for each (common "
                          "random numbers): equities with standard errors, each play's "
                          "difference from the best with the standard error of the paired "
                          "difference, and the probability that it is best. Candidates: the "
                          "plays within 0.10 of the best at 0 ply, at most 8 but at least the "
                          "2 best if there are two (or --top, --play)")
    m.add_argument("--ply", type=_whole_arg, choices=(0, 1, 2, 3), default=None,
                   help="the evaluation that ranks plays (--eval: 0 (default) to 3, GNU "
                        "Backgammon's plies) and picks candidates (--rollout: 0 or 1)")
    m.add_argument("--filter", choices=tuple(FILTER_PRESETS), default=None, dest="move_filter",
                   help="with --eval --ply 1-3: which plays go deeper, GNU Backgammon's move "
                        "filters: normal (default: at 0 ply up to 8 plays within 0.16 of the "
                        "best, at 2 ply up to 2 within 0.04), large (16 within 0.32, then 4 "
                        "within 0.08) or all (no pruning; slow at 2 ply)")
    m.add_argument("--top", type=_positive_int, default=None, metavar="N",
                   help="with --rollout: the N best plays at --ply")
    m.add_argument("--play", action="append", default=None, metavar="MOVE",
                   help="with --rollout: roll out this play (repeat for each), e.g. '13/11 6/5'")
    add_prune_options(m, "with --rollout: ")
    add_rollout_run_options(m, games=None)
    add_store_options(m, "the rollout of the candidate plays (--rollout)", "and extended later",
                      "", "rollout of candidate plays RUN from its first missing block (its own "
                      "position, roll and settings; the numbers equal those of one "
                      "uninterrupted run)")
    m.add_argument("--extend", type=_games, default=None, metavar="N",
                   help="with --resume: add N games a play to the run (the same numbers as "
                        "having asked for the total at first)")
    m.add_argument("--plot", metavar="FILE", default=None,
                   help="with --rollout: also draw the convergence into FILE (.png, .svg or "
                        ".pdf): each play's cubeless equity and its 95%% interval after each "
                        "block of games (needs matplotlib: pip install 'fastbg[plot]'; not "
                        "with --prune-se, which drops plays on the way)")
    m.add_argument("--cubeful", action=argparse.BooleanOptionalAction, default=None,
                   help="with --eval: rank by cubeful equity, or in a match by match winning "
                        "chances at the score (Janowski's model on each play's probabilities, "
                        "the opponent's cube decision included), or by cubeless equity "
                        "(--no-cubeful). Default: cubeful whenever POSITION or the options "
                        "below give a match score, a turned cube or the Jacoby rule; cubeless "
                        "in money play with a centred cube (the numbers of earlier versions)")
    _add_state_options(m)
    m.add_argument("--json", action="store_true", help="machine-readable output")
    m.set_defaults(moves_parser=m)

    e = sub.add_parser("eval", help="the neural network's five probabilities and equity (0 ply, "
                       "or --ply 1-3)")
    e.add_argument("position", metavar="POSITION",
                   help=_POSITION_HELP + ", before the roll (no dice rolled)")
    e.add_argument("--engine", choices=ENGINES, default="cython",
                   help="the network's forward pass in the compiled core (default) or the "
                        "pure-Python reference; same numbers")
    e.add_argument("--ply", type=_whole_arg, choices=(0, 1, 2, 3), default=0,
                   help="look-ahead in GNU Backgammon's plies: 0 (default) the evaluator alone; "
                        "n the average over the 21 rolls of the (n-1)-ply value after the best "
                        "0-ply play (2 ply: some 15 ms; 3 ply: some 0.3 s)")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    add_no_progress_option(e)


def _pictures(args, pos, state=None, dice=None) -> list[str]:
    """``--svg FILE`` / ``--png FILE`` of ``fastbg show``, drawn before anything is printed
    (so a file that cannot be written is the only output); the lines that report them."""
    out = []
    for fmt in ("svg", "png"):
        path = getattr(args, fmt)
        if path is not None:
            save_board(pos, path, state=state, dice=dice, fmt=fmt)
            out.append(f" board drawn into {path}")
    return out


def _show_json(pos, state=None, dice=None, offer=None) -> dict:
    """``fastbg show --json``: the position as data (row 0 of the board the player on roll,
    points 1-24 from that player's side, then the bar)."""
    sides = ("player_on_roll", "opponent")
    board = {side: {"points": [int(n) for n in pos.board[r, :24]], "bar": int(pos.board[r, 24]),
                    "off": int(pos.checkers_off[r]), "pips": int(pos.pip_counts[r])}
             for r, side in enumerate(sides)}
    out = {"position_id": pos.to_position_id(), "board": board,
           "families": [{"family": f, "subject": sides[r]}
                        for f, r in classify(pos.board).items()] if not pos.game_over else [],
           "game_over": bool(pos.game_over), "dice": list(dice) if dice else None}
    if state is None:
        out["xgid"] = pos.to_xgid()
        out["state"] = None
    else:
        out["match_id"] = state.to_match_id(dice=dice)
        out["xgid"] = state.to_xgid(pos, dice)
        out["state"] = {"match_length": state.match_length, "score": list(state.score),
                        "cube": state.cube, "cube_owner": state.cube_owner,
                        "crawford": state.crawford, "jacoby": state.jacoby,
                        "beaver": state.beaver, "description": _describe_state(state)}
    out["pending_offer"] = offer
    return out


def _cmd_show(args) -> int:
    text = args.position.strip()
    if not (_is_xgid(text) or ":" in text):  # 'start' or a Position ID: no state
        pos = Position.parse(text)        # (it refuses an empty board, as parse_game)
        drawn = _pictures(args, pos)
        if args.json:
            print_json(_show_json(pos), indent=2)
            return 0
        print(pos)
        if pos.game_over:
            print(f" {_over(pos)}")
        for line in drawn:
            print(line)
        return 0
    try:
        pos, state, dice = parse_game(text)
    except ValueError:
        # parse_game refuses a bad ID or an impossible state, as every command does, and
        # also a pending double or resignation (it reads positions to roll or play).
        # Only the last is shown: the board and the state before the offer.
        pending = _pending_offer(text)
        if pending is None:
            raise
        pos, state, offer = pending
        drawn = _pictures(args, pos, state)
        if args.json:
            print_json(_show_json(pos, state, offer=offer), indent=2)
            return 0
        print(diagram(pos, state=state))
        print(f" {_describe_state(state)}; {offer} (the Match ID and XGID above are "
              "the position before it)")
        for line in drawn:
            print(line)
        return 0
    drawn = _pictures(args, pos, state, dice)
    if args.json:
        print_json(_show_json(pos, state, dice), indent=2)
        return 0
    print(diagram(pos, state=state, dice=dice))
    print(f" {_describe_state(state)}" + (f"; {_over(pos)}" if pos.game_over else
                                          f"; rolled {dice[0]}-{dice[1]}" if dice else
                                          "; to roll"))
    for line in drawn:
        print(line)
    return 0


def _over(pos) -> str:
    """What a finished game's board says: who has borne off all 15 (nobody is to roll)."""
    who = "the player on roll (X)" if pos.checkers_off[0] == 15 else "the opponent (O)"
    return f"the game is over: {who} has borne off all 15 checkers"


def _pending_offer(text: str):
    """Position, state and a description of the double or resignation pending in an
    XGID or GNU Backgammon ID pair, or ``None`` when none is pending.

    Raises
    ------
    ValueError
        If the ID is bad or its state impossible (the decoder's message).
    """
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
    if (state_given(args) or args.cubeful is not None) and not args.eval:
        given = [f"--{k.replace('_', '-')}" for k in ("cubeful", "match_length", "score", "cube",
                                                       "cube_owner", "max_cube", "crawford",
                                                       "holland", "rolls_played", "jacoby",
                                                       "beaver", "met")
                 if getattr(args, k, None) is not None]
        raise ValueError(f"{given[0]} is for --eval (the plays ranked at the score); "
                         "--rollout rolls the candidates out cubelessly")
    if args.resume is not None:
        return moves_resume(args, vars(args.moves_parser.parse_args([])))
    if args.extend is not None:
        raise ValueError("--extend is for a stored run: give --resume RUN too")
    if args.position is None:
        raise ValueError("give POSITION (and DICE), or --resume RUN")
    if not args.rollout:
        for opt in ("store", "plot"):
            if getattr(args, opt) is not None:
                raise ValueError(f"--{opt} is for --rollout")
    # `moves start start 31`: the second 'start' is one of DICE's words (there may be none),
    # and called the dice bad ("bad dice 'start 31'"); said as any second POSITION is
    second = next((w for w in args.dice if looks_like_position(w)), None)
    if second is not None:
        raise ValueError(second_position("moves", args.position, second))
    pos, _, rolled = parse_game(args.position)
    if not args.dice and rolled is None:
        raise ValueError("give DICE, the roll (31, 3-1 or '3 1'): POSITION has no dice rolled")
    dice = parse_dice(" ".join(args.dice)) if args.dice else rolled
    if rolled is not None and sorted(rolled) != sorted(dice):
        raise ValueError(f"POSITION has {rolled[0]}-{rolled[1]} rolled but DICE is "
                         f"{dice[0]}-{dice[1]}: give the same roll")
    if not args.rollout:
        for opt in ("top", "play", "games", "seed", "workers", "dask", "policy", "vr",
                    "quasi_random", "prune_se", "min_games"):
            value = getattr(args, opt)
            if value is not None:   # --no-vr and --no-quasi-random by their own names
                raise ValueError(f"--{'no-' if value is False else ''}{opt.replace('_', '-')} "
                                 "is for --rollout")
    if args.policy is None:
        args.policy = DEFAULT_POLICY
    if args.min_games is not None and args.prune_se is None:
        raise ValueError("--min-games is for pruning: give --prune-se too")
    if args.prune_se is not None and not 0 < args.prune_se < float("inf"):
        raise ValueError(f"--prune-se must be a positive, finite number of standard errors, "
                         f"got {args.prune_se:g}")
    if args.ply is not None and not (args.eval or args.rollout):
        raise ValueError("--ply is for --eval and --rollout")
    args.ply = args.ply or 0
    if args.rollout and args.ply > 1:
        raise ValueError(f"--rollout picks its candidates at --ply 0 or 1, got {args.ply}")
    if args.move_filter is not None and not (args.eval and args.ply >= 1):
        raise ValueError("--filter is for --eval with --ply 1, 2 or 3")
    if args.top is not None and args.play:
        raise ValueError("give either --top N or --play MOVE, not both")
    if args.rollout:
        return moves_rollout(pos, dice, args)
    if args.eval:
        # as eval and --rollout: no value where neither side can ever move (a deadlock)
        pos.check_playable()
        return moves_eval(pos, dice, args)
    plays = legal_plays(pos, dice, engine=args.engine)
    if args.json:
        print_json({
            "position_id": pos.to_position_id(),
            "dice": list(dice),
            "plays": [{"move": pl.move, "position_id": pl.position_id} for pl in plays],
        }, indent=2)
        return 0
    print(f"Position {pos.to_position_id()}, roll {roll_text(dice)}: "
          f"{len(plays)} legal play{'s' if len(plays) != 1 else ''}")
    if not plays:
        print("  no legal play: the position stays as it is and the turn passes")
    width = max((len(pl.move) for pl in plays), default=0)
    for i, pl in enumerate(plays, 1):
        print(f"  {i:>4}. {pl.move:<{width}}   {pl.position_id}")
    return 0


def _cmd_eval(args) -> int:
    pos, _, dice = parse_game(args.position)
    if dice is not None:
        raise ValueError(
            f"POSITION has the dice rolled ({dice[0]}-{dice[1]}): eval values a position "
            "before the roll; give it before the roll (dice 00 in an XGID), or list the plays "
            "with 'fastbg moves'")
    # both sides on the bar against closed boards: no game goes on from here, and the
    # network's numbers (win 0.77) meant nothing; refused as rollout and cube refuse it
    pos.check_playable()
    ev = evaluate(pos, engine=args.engine, ply=args.ply)
    info = network_info()
    nets = info.get("nets", {})
    if args.json:
        print_json({"position_id": pos.to_position_id(), "engine": args.engine, "ply": ev["ply"],
                    **{k: ev[k] for k in (*PROBABILITY_KEYS, "equity")},
                    "class": ev["class"], "evaluated_by": ev["evaluated_by"],
                    "families": [{"family": f, "subject": "player_on_roll" if r == 0 else "opponent"}
                                 for f, r in ev["families"].items()],
                    "weaker_in": ev["weaker_in"],
                    "network": {"sha256": info.get("sha256"), "generation": info.get("generation"),
                                "nets": nets}}, indent=2)
        return 0
    net = "crashed" if ev["evaluated_by"] == CRASHED_BY else ev["class"]
    print(f"{ev['ply']}-ply evaluation of {pos.to_position_id()} by fastbg's evaluator "
          f"(generation {info.get('generation')}): a {ev['class']} position, read by "
          f"{ev['evaluated_by']}"
          + (f" ({nets[net]['hidden']} hidden units)"
             if net in nets and ev["evaluated_by"].endswith(" net") else ""))
    print("cubeless, for the player on roll before rolling")
    if ev["ply"]:
        print(f"({ev['ply']} ply, GNU Backgammon's count: the average over the 21 rolls of the "
              f"{ev['ply'] - 1}-ply value after each roll's best 0-ply play)")
    print()
    for key in PROBABILITY_KEYS:
        print(f"  {key.replace('_', ' '):<18}{ev[key]:8.4f}")
    print(f"  {'cubeless equity':<18}{ev['equity']:+8.4f}")
    if ev["families"]:
        print("\nposition families: " + ", ".join(
            f"{FAMILY_NAMES[f]} ({'the player on roll' if r == 0 else 'the opponent'})"
            for f, r in ev["families"].items()))
    weak = weaker_families()
    for f in ev["weaker_in"]:
        print(f"note: fastbg's 0-ply evaluator was measured less exact than GNU Backgammon 0-ply "
              f"in the family '{FAMILY_NAMES[f]}' ({weak[f]['summary']})")
    if ev["weaker_in"]:
        print(f"      a rollout is more trustworthy here: fastbg rollout {pos.to_position_id()}")
    return 0


COMMANDS = {"show": _cmd_show, "moves": _cmd_moves, "eval": _cmd_eval}
