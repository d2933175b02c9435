"""``fastbg met``, ``takepoints`` and ``gammon-values``: match equity tables and what follows from them."""
from __future__ import annotations

import sys


from ..cube import (DEFAULT_MET, SHIPPED_METS)

from .common import (_check_length, _load_met, _positive_int, _table_name, _whole_arg,
                     add_no_progress_option, print_json)


#: Largest away score `fastbg met` shows unless --length says otherwise.
MET_LENGTH = 15

#: Cube values of the `fastbg takepoints` table (each doubled to twice its value).
TAKEPOINT_CUBES = (1, 2, 4)


def add_parsers(sub) -> None:
    """The ``met``, ``takepoints`` and ``gammon-values`` commands."""
    def common(q):
        q.add_argument("--met", default=DEFAULT_MET, metavar="NAME_OR_PATH",
                       help=f"match equity table: {', '.join(SHIPPED_METS)} (default "
                            f"{DEFAULT_MET}) or a GNU Backgammon MET XML file")
        fmt = q.add_mutually_exclusive_group()
        fmt.add_argument("--csv", action="store_true",
                         help="comma-separated values: a header, then one record a line")
        fmt.add_argument("--json", action="store_true", help="machine-readable output")
        add_no_progress_option(q)

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
        print_json(out, indent=2)
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
        print_json({"met": _table_name(table), "length": n, "cubes": list(TAKEPOINT_CUBES),
                          "gammonless": True, "take_points": records}, indent=2)
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
        print_json({"met": _table_name(table), "length": n, "cube": args.cube,
                          "gammon_values": records}, indent=2)
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


COMMANDS = {"met": _cmd_met, "takepoints": _cmd_takepoints, "gammon-values": _cmd_gammon_values}
