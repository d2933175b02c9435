"""``fastbg table``: equity tables (openings, replies, race, gammons) as resumable stored runs."""
from __future__ import annotations

import argparse
import csv
import sys

from ..engine import ENGINES
from ..game import PROBABILITY_KEYS
from ..research import (gammons, openings, plot_table, race)
from ..research.plots import check_plot_path
from ..research.race import (DEFAULT_RACE_LEADS, DEFAULT_RACE_PIPS, MAX_RACE_POSITIONS,
                             check_positions)
from ..research.resume import TABLE_FUNCTIONS, TABLE_SETTINGS, table_arguments
from ..research.table import TABLES, check_table_run
from ..rollouts import DEFAULT_POLICY, POLICIES
from ..rollouts.candidates import DEFAULT_MAX_PLAYS, DEFAULT_WITHIN
from ..rollouts.store import ResultsStore
from .common import (_ENGINE_HELP, ascii_number, num, _games, _number_arg, _policy_help, _positive_int, _seed,
                     add_no_progress_option, plural, report_run, _whole_arg)
from .rollouts import (_VR_HELP, _WORKERS_HELP, add_dask_option, cluster_before_store, add_prune_options, add_store_options,
                       check_dask_options, progress_bar)

#: Games per row unless told, by table (per candidate play, per race position; gammons: all).
DEFAULT_GAMES = {"openings": 1296, "replies": 1296, "race": 1296, "gammons": 10_000}

def _number_list(text: str, what: str = "a lead", example: str = "0,5,10") -> list[float]:
    """A LIST option's numbers (``--leads``; ``--pips`` through :func:`_pips_list`): comma
    separated, spaces around them allowed. An empty entry is an error naming it (``60,,80``
    was read as 60,80, and ``0 5`` as 5, without a word)."""
    ascii_number(text)
    items = [v.strip() for v in text.split(",")]
    if not any(items):
        raise argparse.ArgumentTypeError("an empty list")
    empty = next((k for k, v in enumerate(items, 1) if not v), None)
    if empty is not None:
        raise argparse.ArgumentTypeError(f"entry {empty} of {text!r} is empty: give {what} in "
                                         f"each, as in {example}")
    try:
        return [float(v) for v in items]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers") from None


def _pips_list(text: str) -> list[int]:
    out = _number_list(text, "a pip count", "40,60,80")
    if any(v != int(v) for v in out):
        raise argparse.ArgumentTypeError(f"{text!r}: pip counts are whole numbers")
    return [int(v) for v in out]


def _race_positions(text: str) -> int:
    """--positions: a positive whole number, at most :data:`~fastbg.research.race.
    MAX_RACE_POSITIONS` (the table's cells together are checked when it starts)."""
    v = _positive_int(text)
    try:
        return check_positions(v)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parsers(sub) -> None:
    """The ``table`` command and its tables."""
    t = sub.add_parser(
        "table", help="equity tables: opening plays, replies, races against the Keith count "
                      "and Trice's rule, gammon rates by phase",
        description="Compute an equity table: each row a rollout (candidate plays rolled out "
                    "side by side, or a race position), with progress bars, text, CSV or JSON "
                    "output and a plot. With --store the table is a run of the results store, "
                    "row by row and block by block: `fastbg table NAME --resume RUN` continues "
                    "it after Ctrl-C, kill -9 or a crash with the numbers of one uninterrupted "
                    "table.")
    tables = t.add_subparsers(dest="table", metavar="TABLE", parser_class=type(t))
    tables.required = True
    for name, what in TABLES.items():
        p = tables.add_parser(name, help=what, description=what[0].upper() + what[1:] + ".")
        if name == "replies":
            p.add_argument("opening", metavar="OPENING", nargs="?", default=None,
                           help="the opening play: a roll (31: its best play by the nn at 0 "
                                "ply), a roll and a play ('31 8/5 6/5') or a play alone "
                                "('8/5 6/5', when only one opening roll makes it)")
        _add_run_options(p, name)
        if name in ("openings", "replies"):
            _add_candidate_options(p, name)
        if name == "race":
            p.add_argument("--pips", type=_pips_list, default=list(DEFAULT_RACE_PIPS),
                           metavar="LIST",
                           help="pip counts of the player on roll, e.g. 40,60,80 (default "
                                f"{','.join(map(str, DEFAULT_RACE_PIPS))})")
            p.add_argument("--leads", type=_number_list, default=list(DEFAULT_RACE_LEADS),
                           metavar="LIST",
                           help="its leads in percent of its pip count, e.g. 0,5,10 (default "
                                f"{','.join(map(str, DEFAULT_RACE_LEADS))}); the opponent has "
                                "pips + round(pips * lead / 100)")
            p.add_argument("--positions", type=_race_positions, default=3, metavar="N",
                           help="random race positions per cell (default 3): each side's "
                                "checkers on its points 1-12, drawn from the distribution of "
                                "largest entropy with the cell's pip count, seeded from --seed; "
                                f"at most {MAX_RACE_POSITIONS:,} in all cells together (each "
                                "is a rollout of its own: about a day at 1,296 games each)")
            p.add_argument("--truncate-bearoff", action=argparse.BooleanOptionalAction,
                           default=True,
                           help="score a game exactly when it reaches the two-sided bear-off "
                                "database (default on)")
        p.set_defaults(table_parser=p)


def _add_run_options(p, name: str) -> None:
    games = DEFAULT_GAMES[name]
    unit = {"openings": "per candidate play", "replies": "per candidate play",
            "race": "per position", "gammons": "of self-play"}[name]
    p.add_argument("--games", "-n", type=_games, default=games,
                   help=f"games {unit} (default {games:,})")
    p.add_argument("--seed", type=_seed, default=None,
                   help="root seed (default: fresh entropy, reported); each row's seed is "
                        "derived from it")
    p.add_argument("--workers", "-w", type=_positive_int, default=None, help=_WORKERS_HELP)
    add_dask_option(p)
    p.add_argument("--policy", choices=POLICIES, default=DEFAULT_POLICY,
                   help="how both sides play: " + _policy_help())
    p.add_argument("--engine", choices=ENGINES, default="cython",
                   help=_ENGINE_HELP)
    if name != "gammons":
        p.add_argument("--vr", action=argparse.BooleanOptionalAction, default=None,
                       help=_VR_HELP)
        p.add_argument("--quasi-random", action=argparse.BooleanOptionalAction, default=True,
                       help="quasi-random dice (default): the first two random rolls "
                            "stratified, as GNU Backgammon rotates them")
    add_store_options(p, "the table", "(--resume)", "Each row is a run of its own",
                      "table RUN with its own settings, from its first missing block (the "
                      "numbers equal those of one uninterrupted table)", takes_position=False)
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true",
                     help="comma-separated values: a header, then one record a line")
    fmt.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="also draw the table into FILE (.png, .svg or .pdf; needs matplotlib: "
                        "pip install 'fastbg[plot]')")
    add_no_progress_option(p, shows="progress bar")


def _add_candidate_options(p, name: str) -> None:
    rolls = "opening rolls" if name == "openings" else "replies (doubles included)"
    p.add_argument("--rolls", default=None, metavar="LIST",
                   help=f"some {rolls} only, e.g. 31,42 (default all)")
    p.add_argument("--top", type=_positive_int, default=None, metavar="N",
                   help="the N best plays at --ply of each roll (default: the plays within "
                        "--within of the best, at most --max-plays)")
    p.add_argument("--within", type=_number_arg, default=DEFAULT_WITHIN, metavar="X",
                   help=f"candidates within X equity of the best (default {DEFAULT_WITHIN:g})")
    p.add_argument("--max-plays", type=_positive_int, default=DEFAULT_MAX_PLAYS, metavar="N",
                   help=f"at most N candidates (default {DEFAULT_MAX_PLAYS})")
    p.add_argument("--ply", type=_whole_arg, choices=(0, 1), default=0,
                   help="the evaluation that picks the candidates: 0 (default) or 1")
    add_prune_options(p)


def _options(args) -> dict:
    """The table function's arguments from the command line (a new table)."""
    if args.table == "replies" and args.opening is None:
        raise ValueError("give the OPENING play, e.g. `fastbg table replies 31` or "
                         "`fastbg table replies '8/5 6/5'` (or --resume RUN)")
    if getattr(args, "top", None) is not None:
        for opt, default in (("within", DEFAULT_WITHIN), ("max_plays", DEFAULT_MAX_PLAYS)):
            if getattr(args, opt) != default:
                raise ValueError(f"give either --top N or --{opt.replace('_', '-')}, not both "
                                 "(--top takes the N best plays, whatever their equities)")
    return {k: getattr(args, k) for k in TABLE_SETTINGS[args.table]}


def _resumed_options(args, defaults: dict) -> dict:
    """A stored table's own arguments (``--resume``); any setting given too is an error."""
    given = [k for k in (*TABLE_SETTINGS[args.table], "opening")
             if k in defaults and getattr(args, k) != defaults[k]]
    if given:
        opt = given[0]
        raise ValueError(f"{'OPENING' if opt == 'opening' else '--' + opt.replace('_', '-')} "
                         "does not apply with --resume: the table keeps its own settings")
    store = ResultsStore(args.store or None, create=False)
    try:
        run = store.run(args.resume)
        check_table_run(run, args.table)
    except BaseException:
        store.close()
        raise
    return {"store": store, "run_id": run.id, **table_arguments(run)}


#: The function of each table (the library's: :data:`fastbg.research.resume.TABLE_FUNCTIONS`).
_FUNCTIONS = TABLE_FUNCTIONS


#: Blocks of a row of each table, as its table function counts them: the most worker
#: processes its local cluster gets (:func:`~fastbg.cli.rollouts.cluster_before_store`).
_ROW_BLOCKS = {"openings": openings.row_blocks, "replies": openings.row_blocks,
               "race": race.row_blocks, "gammons": gammons.row_blocks}


def _cmd_table(args) -> int:
    check_dask_options(args)
    if args.plot is not None:
        check_plot_path(args.plot)    # a bad file name or no matplotlib: before any game
    if args.resume is not None:
        kwargs = _resumed_options(args, vars(args.table_parser.parse_args([])))
        store = kwargs["store"]
    else:
        kwargs = _options(args)
        store = None
    fn = _FUNCTIONS[args.table]
    if args.table == "replies":
        kwargs = dict(kwargs)
        opening = kwargs.pop("opening", None)
        run = lambda **kw: fn(opening, **kw)      # noqa: E731
    else:
        run = fn
    games = kwargs["games"]
    with cluster_before_store(args, _ROW_BLOCKS[args.table](games, kwargs["policy"]),
                              new_store=args.resume is None) as run_on, \
            progress_bar(args, games if args.table == "gammons" else None,
                         per_row=games) as (update, interrupted, describe):
        if args.resume is None:      # (a new store's file made only once the cluster answers)
            store = ResultsStore(args.store or None) if args.store is not None else None
            kwargs["store"] = store
        extra = {} if args.table == "gammons" else {"on_row": describe}
        try:
            res = run(engine=args.engine, progress=update, on_interrupt=interrupted, **run_on,
                      **extra, **kwargs)
        finally:
            if store is not None:
                store.close()
    return report_run(
        res, args, store, lambda: format_table(res.to_dict()),
        empty=not res.rows or (args.table == "gammons" and not res.summary["games"]),
        command=f"table {args.table}", kind="table run", what="row",
        plot=None if args.plot is None else lambda: plot_table(res.to_dict(), args.plot),
        csv=lambda: write_table_csv(res.to_dict(), sys.stdout))


# ---------------------------------------------------------------------------- text output
def format_table(t: dict) -> str:
    """The text of a table (:meth:`fastbg.research.TableResult.to_dict`)."""
    return _FORMAT[t["table"]](t)


def _head(t: dict, what: str) -> list[str]:
    st = t["settings"]
    head = "INTERRUPTED: " if t["interrupted"] else ""
    flags = ", variance reduction" if st.get("vr") else ""
    flags += ", quasi-random dice" if str(st.get("dice", "")).startswith("quasi") else ""
    where = f", on the Dask cluster at {t['dask']}" if t.get("dask") else ""
    return [f"{head}{t['title']}: {what}",
            f"policy {st['policy']}, engine {st['engine']}, seed {t['seed']}{flags}{where}", ""]


def _format_plays(t: dict) -> str:
    st = t["settings"]
    cand = st["candidates"]
    how = (f"the top {cand['top']} at {cand['ply']} ply" if cand["top"] is not None else
           f"within {cand['within']:g} of the best at {cand['ply']} ply, at most "
           f"{cand['max_plays']}")
    rolls = plural(len(t["rows"]), "roll")
    if t["interrupted"] and t.get("planned_rows"):
        rolls = f"{len(t['rows'])} of {plural(t['planned_rows'], 'roll')} done"
    lines = _head(t, f"{rolls}, {plural(t['games'], 'game')} per candidate "
                     f"play, the same dice for every play of a roll; candidates {how}"
                  + ("; pruned at {prune_se:g} SE".format(**st["prune"]) if st.get("prune") else ""))
    width = max(len(p["move"]) for r in t["rows"] for p in r["plays"])
    lines.append(f"  {'roll':<5} {'play':<{width}}  {'equity':>8} {'s.e.':>6}  {'diff':>7} "
                 f"{'s.e.':>6}  {'P(best)':>7}   {'win':>6} {'w g':>6} {'l g':>6}")
    for r in t["rows"]:
        for i, p in enumerate(r["plays"]):
            pb = num(p["p_best"], "7.1%") if p["p_best"] is not None else f"{'pruned':>7}"
            lines.append(f"  {r['roll'] if i == 0 else '':<5} {p['move']:<{width}}  "
                         f"{p['equity']:+8.4f} {num(p['stderr']['equity'], '6.4f')}  "
                         f"{p['diff']:+7.4f} {num(p['diff_stderr'], '6.4f')}  {pb}   {p['win']:6.3f} "
                         f"{p['win_gammon']:6.3f} {p['lose_gammon']:6.3f}")
    s = t["summary"]
    lines += ["", "  (cubeless equities of the side that plays the roll, after its play; diff: "
                  "from the best play, with the standard error of the paired difference)"]
    if any(p.get("pruned") for r in t["rows"] for p in r["plays"]):
        lines.append("  (pruned: dropped by --prune-se before the end; its equity is over the "
                     "games it played, and its diff and s.e. are paired with the best play's "
                     "results on the same games)")
    if "equity" in s:
        lines.append(f"  {s['meaning']}: {s['equity']:+.4f} (s.e. {s['stderr']:.4f})")
    lines.append(f"  {t['seconds']:.1f} s" + (
        f" (games read from the store rather than played now: {t['stored_games']:,}, those "
        "of one candidate play of each roll added up over the rolls)" if t.get("stored_games")
        else ""))
    return "\n".join(lines)


def _format_race(t: dict) -> str:
    s = t["summary"]
    st = t["settings"]
    size = f"{plural(len(s['cells']), 'cell')}, {plural(len(t['rows']), 'position')}"
    if t["interrupted"] and t.get("planned_rows"):   # the last cell may be partial
        size = (f"{len(t['rows'])} of {plural(t['planned_rows'], 'position')} done, in "
                f"{plural(len(s['cells']), 'cell')}")
    lines = _head(t, f"{size}, {plural(t['games'], 'game')} per position"
                  + ("; exact in the two-sided bear-off database" if st.get("truncate_bearoff")
                     else ""))
    lines.append("  cube actions: the rollout's probabilities by Janowski's model (GNU "
                 "Backgammon's race cube efficiency); money, centred cube")
    lines.append("")
    lines.append(f"  {'pips':>4} {'opp':>4} {'lead':>5}  {'win':>6} {'s.e.':>6}  "
                 f"{'least':>6} {'most':>6}  {'doubles':>7} {'takes':>5}  {'Keith':>5} "
                 f"{'Trice':>5}")
    for c in s["cells"]:
        lines.append(f"  {c['pips']:>4} {c['opponent_pips']:>4} {c['lead']:>+4g}%  "
                     f"{c['win']:6.3f} {c['win_stderr']:6.4f}  {c['win_min']:6.3f} "
                     f"{c['win_max']:6.3f}  {c['doubles']:>3}/{c['positions']:<3} "
                     f"{c['takes']:>2}/{c['positions']:<2}  {c['keith_wrong']:>5} "
                     f"{c['trice_wrong']:>5}")
    lines += ["", "  (per cell: its positions' mean cubeless win probability for the player on "
                  "roll, the standard error of that mean from the rollouts' noise (of these "
                  "positions: how they differ shows in the least and most), the least and "
                  "most; the rollouts' "
                  "doubles and takes; the formulas' wrong decisions, double and take)"]
    for rule, name in (("keith", "Keith count"), ("trice", "Trice's rule")):
        r = s[rule]
        lines.append(f"  {name}: {plural(r['double_errors'], 'wrong double')} and "
                     f"{plural(r['take_errors'], 'wrong take')} in "
                     f"{plural(s['positions'], 'position')} "
                     f"({r['error_rate']:.1%} of the decisions), costing "
                     f"{r['mean_cost']:.4f} equity per position")
    lines.append(f"  {t['seconds']:.1f} s" + (
        f" (games read from the store rather than played now: {t['stored_games']:,} over all "
        "the positions)" if t.get("stored_games") else ""))
    return "\n".join(lines)


def _format_gammons(t: dict) -> str:
    s = t["summary"]
    lines = _head(t, f"{s['games']:,} games of self-play from the opening")
    lines.append(f"  {'phase':<16} {'positions':>9} {'games':>7}  {'win':>6}  "
                 f"{'wins gammon':>15} {'wins bg':>15}  {'loses gammon':>15} {'loses bg':>15}")

    def pm(r, k):
        v, e = r[k], r["stderr"][k]
        return f"{'-':>15}" if v is None else f"{v:7.4f} ±{e or 0:6.4f}"

    for r in t["rows"]:
        share = "" if r["share_of_games"] is None else f"{r['share_of_games']:7.1%}"
        win = f"{r['win']:6.3f}" if r["win"] is not None else f"{'-':>6}"
        lines.append(f"  {r['phase'].replace('_', ' '):<16} {r['positions']:>9,} {share:>7}  "
                     f"{win}  {pm(r, 'win_gammon')} {pm(r, 'win_backgammon')}  "
                     f"{pm(r, 'lose_gammon')} {pm(r, 'lose_backgammon')}")
    lines += ["", "  (the share of each phase's positions whose player on roll went on to win "
                  "or lose a gammon or backgammon, gammons including backgammons; games: the "
                  "share of games that reach the phase; standard errors with each game as a "
                  "cluster)"]
    for key, meaning in ((r["phase"], r["meaning"]) for r in t["rows"]):
        lines.append(f"  {key.replace('_', ' ')}: {meaning}")
    if s["games"]:
        lines.append(f"  games ending in a gammon: {s['gammon']:.2%} (s.e. "
                     f"{s['stderr']['gammon']:.2%}), in a backgammon: {s['backgammon']:.2%} "
                     f"(s.e. {s['stderr']['backgammon']:.2%}); {s['half_moves']:.1f} plays a "
                     "game")
    lines.append(f"  {t['seconds']:.1f} s")
    return "\n".join(lines)


_FORMAT = {"openings": _format_plays, "replies": _format_plays, "race": _format_race,
           "gammons": _format_gammons}


# ---------------------------------------------------------------------------- CSV output
def _plays_records(t: dict):
    yield ["roll", "rank", "move", "equity", "stderr", "diff", "diff_stderr", "p_best",
           *PROBABILITY_KEYS, "games", "pruned", "position_id"]
    for r in t["rows"]:
        for i, p in enumerate(r["plays"], 1):
            yield [r["roll"], i, p["move"], p["equity"], p["stderr"]["equity"], p["diff"],
                   p["diff_stderr"], p["p_best"], *(p[k] for k in PROBABILITY_KEYS),
                   p["games"], p["pruned"], p["position_id"]]


def _race_records(t: dict):
    yield ["pips", "opponent_pips", "lead", "index", "position_id", *PROBABILITY_KEYS,
           "win_stderr", "equity", "games", "action", "nd", "dt", "dp", "x",
           "keith_count", "keith_opponent", "keith_margin", "keith_action", "keith_cost",
           "trice_point_of_last_take", "trice_margin", "trice_action", "trice_cost"]
    for r in t["rows"]:
        ro, c, k, tr = r["rollout"], r["cube"], r["keith"], r["trice"]
        yield [r["pips"], r["opponent_pips"], r["lead"], r["index"], r["position_id"],
               *(ro[key] for key in PROBABILITY_KEYS), ro["stderr"]["win"], ro["equity"],
               ro["games"], c["action"], c["nd"], c["dt"], c["dp"], c["x"],
               k["roller_count"], k["counts"][1], k["margin"], k["action"],
               k["errors"]["cost_double"] + k["errors"]["cost_take"],
               tr["point_of_last_take"], tr["margin"], tr["action"],
               tr["errors"]["cost_double"] + tr["errors"]["cost_take"]]


def _gammons_records(t: dict):
    keys = (*PROBABILITY_KEYS, "equity", "gammon", "backgammon")
    yield ["phase", "positions", "games", "share_of_games",
           *(x for k in keys for x in (k, f"{k}_stderr"))]
    for r in t["rows"]:
        yield [r["phase"], r["positions"], r["games"], r["share_of_games"],
               *(x for k in keys for x in (r[k], r["stderr"].get(k)))]


_RECORDS = {"openings": _plays_records, "replies": _plays_records, "race": _race_records,
            "gammons": _gammons_records}


def write_table_csv(t: dict, out) -> None:
    """A table as CSV: a header, then one record per candidate play (openings, replies),
    race position (race) or phase (gammons); floats in full (``repr``), empty for none."""
    w = csv.writer(out, lineterminator="\n")
    for rec in _RECORDS[t["table"]](t):
        w.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in rec])


COMMANDS = {"table": _cmd_table}
