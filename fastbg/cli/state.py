"""Cube, score and rules on the command line: the options of ``rollout --cubeful`` and ``cube``."""
from __future__ import annotations

import argparse



from ..cube import (CUBE_OWNERS, DEFAULT_MET, SHIPPED_METS)
from ..game import DEFAULT_MAX_CUBE, MatchState, parse_game

from .common import (_is_xgid, _non_negative_int, _score_arg, _whole_arg, plural)


def _rolls_arg(text: str) -> int:
    v = _whole_arg(text)
    if not 0 <= v <= 10_000:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number of rolls from 0 to 10000")
    return v


_STATE_OPTIONS = ("match_length", "score", "cube", "cube_owner", "max_cube", "crawford", "jacoby",
                  "beaver", "holland", "rolls_played", "met", "x")


def _add_state_options(parser) -> None:
    """The cube and match options of `fastbg cube` and `fastbg rollout --cubeful`."""
    g = parser.add_argument_group("cube and match (each replaces POSITION's field)")
    g.add_argument("--match-length", type=_non_negative_int, default=None, metavar="N",
                   help="points to win the match; 0 is money play (the default)")
    g.add_argument("--score", type=_score_arg, default=None, metavar="A-B",
                   help="points won so far (each 0 or more), the player on roll's first")
    g.add_argument("--cube", type=_whole_arg, default=None, metavar="V",
                   help="cube value: 1 (centred), 2, 4, ...")
    # (--owner: its older name, kept as an alias)
    g.add_argument("--cube-owner", "--owner", dest="cube_owner", choices=CUBE_OWNERS,
                   default=None,
                   help="who owns the cube, from the player on roll's view (a 1-cube is "
                        "centred; a centred cube above 1, from automatic doubles, only in "
                        "money play); --owner is its older name")
    g.add_argument("--max-cube", type=_whole_arg, default=None, metavar="V",
                   help="largest cube value allowed, a power of two (default: an XGID's max "
                        f"cube field, else {DEFAULT_MAX_CUBE}); no double from a cube at the "
                        "limit")
    g.add_argument("--crawford", action=argparse.BooleanOptionalAction, default=None,
                   help="this game is the Crawford game (one side 1-away, nobody may double); "
                        "a game with a side 1-away is otherwise post-Crawford")
    g.add_argument("--holland", action=argparse.BooleanOptionalAction, default=None,
                   help="match play: the Holland rule, in a post-Crawford game no double "
                        "before both sides have played two rolls (see --rolls-played)")
    g.add_argument("--rolls-played", type=_rolls_arg, default=None, metavar="N",
                   help="with --holland: rolls (of either side, the opening roll's included) "
                        "already played in this game; default: 0 for a cubeful rollout from "
                        "the start with the opening roll, else 'both sides have played two'")
    g.add_argument("--jacoby", action=argparse.BooleanOptionalAction, default=None,
                   help="money play: gammons count single while the cube is centred")
    g.add_argument("--beaver", action=argparse.BooleanOptionalAction, default=None,
                   help="money play: beavers allowed (changes the wording of a take)")
    g.add_argument("--met", default=None, metavar="NAME_OR_PATH",
                   help=f"match equity table: {', '.join(SHIPPED_METS)} or a GNU Backgammon "
                        f"MET XML file (default {DEFAULT_MET}; match play only)")


def _cube_state(args):
    """Position and MatchState of `fastbg cube`: POSITION's state with the options applied."""
    pos, base, dice = parse_game(args.position)
    if dice is not None:
        raise ValueError(
            f"POSITION has the dice rolled ({dice[0]}-{dice[1]}): the cube is turned before "
            "the roll; give the position before it (dice 00 in an XGID)")
    return pos, state_with_options(args, base, pos)


def state_given(args) -> bool:
    """Whether any cube or match option was given on the command line."""
    return any(getattr(args, k, None) is not None for k in _STATE_OPTIONS if k != "x")


def state_with_options(args, base, pos):
    """POSITION's state ``base`` with the cube and match options of ``args`` applied
    (`fastbg cube`, `fastbg moves --eval`): a MatchState, or ValueError naming the
    problem."""
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
    if args.match_length is not None and (args.match_length == 0) != base.is_money:
        # From money to match play or back: the other kind's fields do not carry over.
        fields.update(score=(0, 0), crawford=False, holland=False, jacoby=False, beaver=False)
    given = {"match_length": args.match_length, "score": args.score, "cube": args.cube,
             "cube_owner": args.cube_owner, "crawford": args.crawford, "jacoby": args.jacoby,
             "beaver": args.beaver, "max_cube": args.max_cube, "holland": args.holland,
             "rolls_played": args.rolls_played}
    given = {k: v for k, v in given.items() if v is not None}
    fields.update(given)
    if args.cube is not None:
        if args.cube_owner is None and args.cube == 1:
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
    if args.rolls_played is not None and not fields["holland"]:
        raise ValueError("--rolls-played is for the Holland rule: give --holland too")
    try:
        state = MatchState(**fields)
    except ValueError as exc:
        carried = base != MatchState()
        raise ValueError(f"{exc}" + (" (POSITION's state with the options given)"
                                     if carried and given else "")) from None
    if state.holland:
        state = state.for_position(pos.board)     # the starting position: no roll played yet
    if args.met is not None and state.is_money:
        raise ValueError("--met is for match play: give --match-length (or a POSITION with "
                         "a match score)")
    return state


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
    if state.holland:
        phase += (", Holland rule" + (" (in force only after the Crawford game)"
                                      if not state.post_crawford
                                      else "" if state.rolls_played is None
                                      else f" ({plural(state.rolls_played, 'roll')} played)"))
    return (f"{state.match_length}-point match, score {state.score[0]}-{state.score[1]} "
            f"({a}-away/{b}-away){phase}, cube {state.cube} {owner}"
            + ("" if table is None else f", table {table.name or table.source}"))
