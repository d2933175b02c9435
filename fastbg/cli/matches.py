"""``fastbg match``: read match files, check them, and say what they hold."""
from __future__ import annotations

import sys

from ..engine import ENGINES
from ..game.matchfile import FORMATS, MatchFileError, read_match
from .common import (_ENGINE_HELP, EXIT_USAGE, add_no_progress_option, plural, print_json,
                     shorten)


def add_parsers(sub) -> None:
    """The ``match`` command."""
    m = sub.add_parser(
        "match", help="read match files (Jellyfish .mat, GNU Backgammon .sgf), check every "
                      "play and cube action, print a summary",
        description="Read match files, Jellyfish .mat and GNU Backgammon .sgf, replaying every "
                    "play against the move generator and every cube action, score and result "
                    "against the rules; print each file's players, score, games and decisions, "
                    "or one error line naming the file, game, move and problem (status 2 when "
                    "any file is refused; the others are still read).")
    m.add_argument("files", metavar="FILE", nargs="+",
                   help="a .mat or .sgf file (the format from the suffix, else the content)")
    m.add_argument("--format", choices=tuple(FORMATS), default=None,
                   help="read every FILE as this format")
    m.add_argument("--games", action="store_true", help="also a line for each game")
    m.add_argument("--engine", choices=ENGINES, default="cython", help=_ENGINE_HELP)
    m.add_argument("--json", action="store_true",
                   help="machine-readable output: a list with one object a file")
    add_no_progress_option(m)


def _game_line(match, g) -> str:
    s = f"{g.score[0]}-{g.score[1]}"
    head = f"  game {g.number}: {s}{' (Crawford)' if g.crawford else ''}, "
    if g.winner is None:
        end = "not finished"
    else:
        end = f"{match.names[g.winner]} wins {plural(g.points, 'point')} ({g.ended_by})"
    return (f"{head}{end}; {plural(g.plays, 'checker play')}, "
            f"{plural(g.cube_actions, 'cube action')}")


def _as_json(path: str, match) -> dict:
    return {
        "file": path, "names": list(match.names), "match_length": match.match_length,
        "crawford": match.crawford, "jacoby": match.jacoby, "beaver": match.beaver,
        "score": list(match.score),
        "winner": None if match.winner is None else match.names[match.winner],
        "games": [{"number": g.number, "score": list(g.score), "crawford": g.crawford,
                   "winner": None if g.winner is None else match.names[g.winner],
                   "points": g.points, "ended_by": g.ended_by, "checker_plays": g.plays,
                   "cube_actions": g.cube_actions}
                  for g in match.games],
    }


def _cmd_match(args) -> int:
    failed = 0
    out = []
    for path in args.files:
        try:
            match = read_match(path, args.format, engine=args.engine)
        except MatchFileError as exc:
            failed += 1
            sys.stderr.write(f"fastbg match: error: {shorten(str(exc))}\n")
            if args.json:
                out.append({"file": path, "error": str(exc)})
            continue
        if args.json:
            out.append(_as_json(path, match))
            continue
        print(f"{path}: {match.summary()}")
        if args.games:
            for g in match.games:
                print(_game_line(match, g))
    if args.json:
        print_json(out, indent=1)
    return EXIT_USAGE if failed else 0


COMMANDS = {"match": _cmd_match}
