"""``fastbg rollout``: cubeless and cubeful rollouts of a position."""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys

from ..engine import ENGINES
from ..game import MatchState, Position, parse_game, PROBABILITY_KEYS
from ..rollouts import DEFAULT_POLICY, POLICIES, cubeful_rollout, rollout
from ..rollouts.cubeless import normal_quantile
from ..rollouts.blocks import block_size_for, n_blocks
from ..rollouts.cluster import check_address, connect
from ..rollouts.cubeful import convergence_point
from ..rollouts.cubesettings import CubefulSettings
from ..rollouts.resume import resume_rollout
from ..rollouts.runner import Runner
from ..rollouts.presets import PRESETS as ROLLOUT_PRESETS, rollout_preset
from ..rollouts.settings import NPLY_FIELDS, RolloutSettings
from ..spec.nply import PRESETS as FILTER_PRESETS
from ..rollouts.store import ResultsStore, describe_run
from ..research import convergence
from ..research.plots import check_plot_path

from .common import (_ENGINE_HELP, add_no_progress_option, num, _dice_arg, _is_xgid, check_ctrl_c, convergence_plot,
                     games_played, games_rate, _games, note_ctrl_c, _number_arg, _policy_help, _positive_int, _seed, plural,
                     _whole_arg,
                     report_run, run_id_arg, stop_name, store_path_arg, stored_blocks)
from .state import (_STATE_OPTIONS, _add_state_options, _cube_state, _describe_state)


_VR_HELP = ("variance reduction (luck adjustment by the nn evaluator at 0 ply, as GNU "
            "Backgammon and eXtreme Gammon do it): the same games, unbiased estimates with much "
            "smaller standard errors for about 7x the time per game. Default: on for the nn "
            "policies (about 3x less time for the same accuracy in contact, 50x in races; 2-3x "
            "in cubeful and cube rollouts, the luck valued at the cube of each roll), off "
            "for pubeval and random (measured: experiments/bench_vr.py, "
            "experiments/bench_vr_cubeful.py)")


_DASK_HELP = ("play the blocks of games on a Dask cluster (needs dask.distributed: pip install "
              "'fastbg[dask]'): alone, a local cluster of --workers processes started for the "
              "run; with tcp://HOST:PORT, the cluster of that scheduler (`dask scheduler`, then "
              "`dask worker tcp://HOST:PORT` on each machine, with the same fastbg and Python). "
              "The same numbers as threads; a worker lost in the run costs only its blocks, "
              "which are played again")

#: Games of ``fastbg rollout`` unless --games or --preset says otherwise.
DEFAULT_GAMES = 10_000

_WORKERS_HELP = "threads (default: one per CPU); with --dask alone, the local cluster's processes"


def _dask_arg(text: str) -> str:
    try:
        return check_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_dask_option(p) -> None:
    """--dask [ADDRESS] of a command that runs rollouts."""
    p.add_argument("--dask", nargs="?", const=True, default=None, type=_dask_arg,
                   metavar="ADDRESS", help=_DASK_HELP)


def check_dask_options(args) -> None:
    """--workers with --dask ADDRESS: an error (the cluster's workers are its own)."""
    if isinstance(args.dask, str) and args.workers is not None:
        raise ValueError(f"--workers is for threads or a local cluster (--dask alone); the "
                         f"cluster at {args.dask} has the workers started there")


@contextlib.contextmanager
def cluster_before_store(args, blocks: int, new_store: bool = True):
    """The ``dask`` and ``workers`` arguments of a run whose command opens its store itself.

    With ``--dask`` and a new ``--store`` run, the cluster is started (or connected to, and
    its workers checked) here, before the command opens the store, and closed at the end:
    a scheduler that does not answer, or a missing dask.distributed, then leaves no empty
    store file behind (``rollout --dask tcp://... --store new.sqlite`` did). The library
    functions connect first too, but they were handed a store the command had made.

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (``dask``, ``workers``, ``store``).
    blocks : int
        Blocks of the run (of a table's longest row): the most worker processes a local
        cluster gets, as the run itself would start it.
    new_store : bool, default True
        Whether the command makes a new run in the store (not ``--resume``, whose store
        exists).

    Yields
    ------
    dict
        ``dask`` and ``workers`` for the run: the cluster connected here and ``None``, or
        the command's own.
    """
    if not args.dask or args.store is None or not new_store:
        yield {"dask": args.dask, "workers": args.workers}
        return
    with connect(args.dask, args.workers, blocks=blocks) as cluster:
        yield {"dask": cluster, "workers": None}


def workers_text(res, asked: int | None = None, unit: str = "game") -> str:
    """``workers N`` of a result's header, with the Dask cluster that played it, and why
    the run used fewer workers than ``--workers`` asked for.

    Parameters
    ----------
    res : result of a rollout, cubeful rollout, rollout of plays or cube rollout
        Its ``workers``, ``dask`` and ``settings`` (``engine``, ``games``, ``block_size``).
    asked : int, optional
        The command's ``--workers`` (None: not given, one per CPU).
    unit : str
        What the run plays: ``"game"``, or ``"trial"`` for a cube rollout.

    Returns
    -------
    str
        ``"workers 2"``; ``"workers 1 (2 asked: 500 games make only 1 block, of up to
        1,000 games, and one worker plays each block)"``: blocks of games are the unit of
        work; ``"workers 1 (2 asked: the pure-Python engine plays on one thread)"``.
    """
    text = f"workers {res.workers}"
    if res.dask:
        return text + f" on the Dask cluster at {res.dask}"
    if asked is None or res.workers >= asked:
        return text
    st = res.settings
    if st["engine"] == "python":
        why = "the pure-Python engine plays on one thread"
    else:
        games, size = st["games"], st["block_size"]
        why = (f"{plural(games, unit)} make only {plural(n_blocks(games, size), 'block')}, of "
               f"up to {plural(size, unit)}, and one worker plays each block")
    return f"{text} ({asked} asked: {why})"


def add_rollout_run_options(p, games: int) -> None:
    """--games, --seed, --workers, --dask, --policy, --vr/--no-vr and --no-progress of a
    command that runs rollouts (``rollout``, ``moves --rollout``)."""
    p.add_argument("--games", "-n", type=_games, default=games,
                   help=f"games to play (default {games:,})" if games else
                        "games per candidate play with --rollout (default 1,296)")
    p.add_argument("--seed", type=_seed, default=None, help="root seed (default: fresh entropy, reported)")
    p.add_argument("--workers", "-w", type=_positive_int, default=None, help=_WORKERS_HELP)
    add_dask_option(p)
    # (moves: None until --rollout is known, so that --policy without it is refused)
    p.add_argument("--policy", choices=POLICIES, default=DEFAULT_POLICY if games else None,
                   help="how both sides play: " + _policy_help())
    p.add_argument("--vr", action=argparse.BooleanOptionalAction, default=None, help=_VR_HELP)
    p.add_argument("--quasi-random", action=argparse.BooleanOptionalAction, default=None,
                   help="quasi-random dice (default): the first two random rolls stratified so "
                        "that every 36 games hold each first roll once (30 from the opening "
                        "roll) and every 1,296 each pair of first and second rolls, as GNU "
                        "Backgammon rotates them; --no-quasi-random draws every roll (cubeless "
                        "and cubeful rollouts)")
    add_no_progress_option(p, shows="progress bar")


def add_store_options(p, what: str, later: str, scope: str, resume: str,
                      takes_position: bool = True) -> None:
    """``--store [PATH]`` and ``--resume RUN`` of a command whose runs the results store
    keeps (``rollout``, ``table``); ``takes_position``: the command has a POSITION (a PATH
    that looks like one is refused either way, :func:`~fastbg.cli.common.store_path_arg`)."""
    # --store alone is False (falsy: the default store); a str const would go through
    # `type`, which refuses the empty PATH that `--store ""` gives
    p.add_argument("--store", nargs="?", const=False, default=None, metavar="PATH",
                   type=store_path_arg(bare_is_default=True, takes_position=takes_position),
                   help=f"keep {what} in a results store (SQLite), block by block, so that it "
                        f"can be resumed after Ctrl-C, kill -9 or a crash {later}; PATH "
                        "default $FASTBG_STORE or ~/.local/share/fastbg/runs.sqlite" +
                        (f". {scope}" if scope else ""))
    p.add_argument("--resume", type=run_id_arg, default=None, metavar="RUN",
                   help=f"continue stored {resume}; `fastbg runs` lists the runs")


def add_prune_options(p, scope: str = "") -> None:
    """``--prune-se [K]`` and ``--min-games N`` of candidate-play rollouts (``moves
    --rollout``, ``table openings``); ``scope`` opens their help ("with --rollout: ")."""
    p.add_argument("--prune-se", type=_number_arg, nargs="?", const=3.0, default=None,
                   metavar="K",
                   help=f"{scope}after --min-games, and then after every 2 blocks of "
                        "games, drop the plays more than K (default 3) standard errors of the "
                        "paired difference behind the best; they keep the games they played")
    p.add_argument("--min-games", type=_games, default=None, metavar="N",
                   help="with --prune-se: play at least N games before pruning (rounded up "
                        "to a block of 324 games; default 648)")


def add_parsers(sub) -> None:
    """The ``rollout`` command."""
    r = sub.add_parser("rollout", help="Monte Carlo rollout of a position")
    # default None, read as 'start': so that any POSITION given with --resume, 'start'
    # too, is seen and refused (the run has its own)
    r.add_argument("position", metavar="POSITION", nargs="?", default=None,
                   help="'start' (default), a Position ID, a GNU PositionID:MatchID pair or an "
                        "XGID; dice rolled in the last two are the first roll")
    add_rollout_run_options(r, games=DEFAULT_GAMES)
    r.set_defaults(games=None)      # read as DEFAULT_GAMES, or the --preset's games
    r.add_argument("--engine", choices=ENGINES, default="cython",
                   help=_ENGINE_HELP)
    r.add_argument("--dice", type=_dice_arg, default=None, help="fix the first roll, e.g. 31")
    r.add_argument("--until-se", type=_number_arg, default=None, metavar="X",
                   help="stop at the first block of games (1,000 games; 100 with nn-1ply or "
                        "--ply 1, 10 with --ply 2) "
                        "after which the equity's standard error is at most X (--games is then "
                        "the most to play); where it stops depends only on the seed and the "
                        "settings. With --cubeful: the cubeful equity's (EMG in match play)")
    r.add_argument("--min-games", type=_games, default=None, metavar="N",
                   help="with --until-se: play at least N games (the stop is checked at the "
                        "end of each block, so at least one block is played)")
    r.add_argument("--truncate", type=_positive_int, default=None, metavar="N",
                   help="truncation: stop each game after N half-moves (plays of either side) "
                        "and score it by the nn evaluator (at --truncate-ply); faster and less noisy, "
                        "biased by the evaluator's error where it stops. Cubeless rollouts only")
    r.add_argument("--ply", type=_whole_arg, choices=(0, 1, 2, 3), default=None,
                   help="checker play at this ply (GNU Backgammon's plies): 0 (default) the "
                        "policy as it plays; 1 to 3 the nn evaluator's n-ply ranking through "
                        "--filter (--policy nn; in contact some 40 games a second on a core at "
                        "1 ply, one or two at 2 ply). Cubeless rollouts")
    r.add_argument("--filter", choices=tuple(FILTER_PRESETS), default=None, dest="move_filter",
                   help="with --ply or --luck-ply 1-3: which plays go deeper, GNU Backgammon's "
                        "move filters: normal (default: at 0 ply up to 8 plays within 0.16 of "
                        "the best, at 2 ply up to 2 within 0.04), large (16 within 0.32, then "
                        "4 within 0.08) or all (no pruning)")
    r.add_argument("--luck-ply", type=_whole_arg, choices=(0, 1, 2, 3), default=None,
                   help="the ply at which variance reduction values each roll's luck: 0 "
                        "(default) the nn at 0 ply, the cheap yardstick (unbiased like any); "
                        "1-3 each roll's best play at that ply through --filter, valued there: "
                        "less noise, for about 21 n-ply rankings a half-move (1 ply: some 30x "
                        "the time of a 1-ply rollout)")
    r.add_argument("--truncate-ply", type=_whole_arg, choices=(0, 1, 2, 3), default=None,
                   help="with --truncate: score a truncated game at this ply (default 0)")
    r.add_argument("--preset", choices=tuple(ROLLOUT_PRESETS), default=None,
                   help="named settings: checker-play ply and filter, truncation and games "
                        "(options given beside it win), e.g. 2ply: 2-ply checker play through "
                        "the Normal filter, played out, 1,296 games; each is described in "
                        "docs/cli.md, 'Rollouts at any depth'. Cubeless rollouts")
    r.add_argument("--truncate-bearoff", action="store_true",
                   help="stop a game when both sides are in the two-sided bear-off database "
                        "(1 to 6 checkers each, all home) and score it exactly. Cubeless "
                        "rollouts only")
    r.add_argument("--by-first-roll", action="store_true",
                   help="also break the estimates down by the first roll (21 rolls; from the "
                        "opening roll, 15 for each side); with --cubeful the cubeful equity. "
                        "Needs quasi-random dice")
    first = r.add_mutually_exclusive_group()
    first.add_argument("--opening", "--initial", dest="opening", action="store_true", default=None,
                   help="begin with the opening roll: roll out the position before the opening "
                        "roll (no double first, 30 outcomes; GNU Backgammon's 'rollout as "
                        "initial position'); default for 'start' without --dice")
    first.add_argument("--no-opening", dest="opening", action="store_false",
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
    add_store_options(r, "the run", "and extended later",
                      "", "run RUN from its first missing block (its own "
                      "position and settings; the numbers equal those of one uninterrupted run)")
    r.add_argument("--extend", type=_games, default=None, metavar="N",
                   help="with --resume: add N games to the run (the same numbers as having "
                        "asked for the total at first); not for a run with --until-se (start "
                        "a run with more games or a smaller --until-se)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.add_argument("--plot", metavar="FILE", default=None,
                   help="also draw the convergence of the estimate into FILE (.png, .svg or "
                        ".pdf): the equity (cubeless; with --cubeful the cubeful equity, EMG "
                        "in match play) and its 95%% interval after each block "
                        "of games (needs matplotlib: pip install 'fastbg[plot]'; a stored run "
                        "again: fastbg runs show RUN --plot FILE)")
    r.set_defaults(rollout_parser=r)


def _format_table(res, workers_asked: int | None = None) -> str:
    """The text of a rollout's result; ``workers_asked``: the command's ``--workers``
    (:func:`workers_text`)."""
    label = {"win": "win", "win_gammon": "win gammon", "win_backgammon": "win backgammon",
             "lose_gammon": "lose gammon", "lose_backgammon": "lose backgammon",
             "equity": "cubeless equity"}
    lines = []
    head = "INTERRUPTED: " if res.interrupted else ""
    lines.append(f"{head}Rollout of {res.position_id}: "
                 + games_played(res.games, res.games_requested, res.interrupted)
                 + _stop_text(res, res.stderr["equity"]))
    extra = f", first roll {res.dice[0]}-{res.dice[1]}" if res.dice else ""
    extra += ", opening roll" if res.opening else ""
    extra += ", variance reduction" if res.vr else ""
    extra += ", quasi-random dice" if res.settings.get("dice", "").startswith("quasi") else ""
    if res.settings.get("truncation"):
        extra += f", truncated after {plural(res.settings['truncation'], 'half-move')}"
        if res.settings.get("truncate_ply"):
            extra += f" (scored at {res.settings['truncate_ply']} ply)"
    if res.settings.get("truncate_bearoff"):
        extra += ", exact in the two-sided bear-off database"
    lines.append(f"policy {_policy_text(res)}, engine {res.engine}, "
                 f"{workers_text(res, workers_asked)}, seed {res.seed}{extra}")
    lines.append("")
    lines.append(f"  {'':<16} {'estimate':>9} {'std.err':>9}   {'95% confidence interval':>24}")
    for key in (*PROBABILITY_KEYS, "equity"):
        est, se = getattr(res, key), res.stderr[key]
        lo, hi = res.confidence_interval(key, 0.95)
        sign = "+" if key == "equity" else ""
        lines.append(f"  {label[key]:<16} {est:{sign}9.4f} {num(se, '9.4f')}   "
                     f"[{num(lo, sign + '.4f')}, {num(hi, sign + '.4f')}]")
    if res.truncated:
        n, db = res.settings.get("truncation"), res.settings.get("truncate_bearoff")
        how = " or ".join(
            ([f"after {n} half-moves, scored by the nn at "
              f"{res.settings.get('truncate_ply', 0)} ply"] if n else [])
            + (["on entering the two-sided bear-off database, scored exactly"] if db else []))
        lines.append(f"  ({res.truncated:,} of the games stopped early: {how})")
    lines.append(f"  (luck-adjusted estimates: variance reduction, yardstick "
                 f"{res.settings.get('yardstick', 'nn 0-ply')}; normal intervals)"
                 if res.vr else
                 "  (normal intervals)" if res.truncated else
                 "  (intervals: Wilson's score interval for the probabilities, normal for the equity)")
    if res.by_first_roll:
        lines += ["", "  by first roll:       games    equity   std.err      win"]
        for r in res.by_first_roll:
            who = f" ({r['first']})" if "first" in r else ""
            lines.append(f"    {r['roll'] + who:<16} {r['games']:>7,} {num(r['equity'], '+9.4f')} "
                         f"{num(r['stderr']['equity'], '9.4f')} {num(r['win'], '8.4f')}")
        lines += first_roll_legend(res.by_first_roll)
    lines += ["", played_text(res)]
    return "\n".join(lines)


def _policy_text(res) -> str:
    """The checker play of a rollout's result in words: its policy, and for n-ply play its
    ply and move filter."""
    ply, mf = res.settings.get("ply", 0), res.settings.get("move_filter")
    if not ply or res.policy != "nn" or mf is None:
        return res.policy
    return f"nn at {ply} ply ({mf.get('name') or 'custom'} filter)"


def played_text(res, unit: str = "game", rate: bool = True) -> str:
    """The last line of a rollout's text: its time and rate (``rate``: a result without
    ``games_per_second`` has none), and the games of a resumed run played now and read
    from the store."""
    if res.stored_games and res.stored_games >= res.games:
        return f"  all {plural(res.games, unit)} read from the store"
    return (f"  {res.seconds:.2f} s" + (f", {games_rate(res.games_per_second)}" if rate else "")
            + (f" ({res.games - res.stored_games:,} {unit}s played now, "
               f"{res.stored_games:,} read from the store)" if res.stored_games else ""))


def first_roll_legend(rows: list) -> list:
    """The line under a breakdown by first roll that says whose roll and whose numbers.

    ``[]`` when no row says who rolled (a position other than the opening one, whose
    first roll is the side on roll's).
    """
    if not any("first" in r for r in rows):
        return []
    return ["  ((player): the player won the opening roll with it; (opponent): the opponent did;"
            " every row's numbers are the player's)"]


@contextlib.contextmanager
def progress_bar(args, total, per_row=None):
    """A tqdm progress bar on stderr unless ``--no-progress``, counting games: yields
    ``(update, on_interrupt, describe)`` for a run's ``progress``, ``on_interrupt`` (Ctrl-C
    is acknowledged on stderr as soon as the run notices it) and a table's ``on_row(label,
    j, n)`` (the bar shows the row; its total becomes ``n * per_row``)."""
    bar = None
    if not args.no_progress:  # tqdm shows nothing when stderr is not a terminal
        from tqdm import tqdm  # third-party, loaded only when a bar is drawn
    check_ctrl_c()             # one that an import (tqdm's) swallowed: no run starts
    if not args.no_progress:
        bar = tqdm(total=total, unit="game", unit_scale=True, file=sys.stderr,
                   disable=None, dynamic_ncols=True, leave=False)

    told = []

    def interrupted(running: int) -> None:
        # a run tells of the first Ctrl-C with the blocks it finishes, and of a second one,
        # which abandons them, with 0 (fastbg.rollouts.blocks.run_blocks); a run told of a
        # Ctrl-C may still end whole, and the command then exits 130 all the same (main)
        note_ctrl_c()
        if bar is not None:
            bar.clear()
        told.append(running)
        name = stop_name()            # "SIGTERM", taken as a Ctrl-C, or "Ctrl-C"
        if len(told) > 1:
            line = (f"fastbg: {name} again: stopping now; the blocks in flight are dropped, "
                    "the finished ones kept")
        elif running:
            line = (f"fastbg: {name}: finishing the {plural(running, 'block')} in flight, then "
                    f"reporting the games played; {name} again stops at once")
        else:
            line = f"fastbg: {name}: stopping; reporting the games played"
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def describe(label: str, j: int, n: int) -> None:
        if bar is not None:
            if per_row is not None and bar.total != n * per_row:
                bar.total = n * per_row
            bar.set_description_str(f"{label} ({j + 1}/{n})")

    try:
        yield (None if bar is None else bar.update), interrupted, describe
    finally:
        if bar is not None:
            bar.close()


def _with_progress(args, run):
    """``run(progress=..., on_interrupt=...)`` under a :func:`progress_bar` of ``args.games``."""
    check_dask_options(args)
    with progress_bar(args, args.games) as (update, interrupted, _):
        return run(progress=update, on_interrupt=interrupted)


def rollout_settings_of(args, dice=None, opening=None) -> RolloutSettings:
    """The one place where ``fastbg rollout``'s options become the run's settings
    (:class:`~fastbg.rollouts.settings.RolloutSettings`; each option is named as its field):
    ``dice`` and ``opening`` as the command resolved them from POSITION and the cube."""
    options = {name: getattr(args, name) for name in RolloutSettings.fields()}
    # (the n-ply options default to None: the preset's, else the settings' defaults)
    base = rollout_preset(args.preset).settings if getattr(args, "preset", None) else {}
    options = base | {k: v for k, v in options.items() if not (k in NPLY_FIELDS or k in base)
                      or v is not None}
    return RolloutSettings(**options | dict(dice=dice, opening=opening,
                                            quasi_random=args.quasi_random is not False))


def runner_of(args, **shown) -> Runner:
    """Where and how ``fastbg rollout`` plays: ``--engine``, ``--workers``, ``--dask``, and
    the progress bar's callbacks ``shown``."""
    return Runner(engine=args.engine, workers=args.workers, dask=args.dask, **shown)


#: Options of `fastbg rollout` that a resumed run takes from the store, not the command line:
#: POSITION, --games and the settings (each option named as its field).
_RUN_SETTINGS = ("position", "games", *RolloutSettings.fields())


def _store(args, create: bool = True):
    return ResultsStore(args.store or None, create=create)


def _cmd_resume(args, parser_defaults) -> int:
    """``fastbg rollout --resume RUN [--extend N]``: the stored run's own settings."""
    given = [k for k in (*_RUN_SETTINGS, "cubeful", "preset", *_STATE_OPTIONS)
             if getattr(args, k) != parser_defaults.get(k)]
    if given:
        opt = {"move_filter": "filter"}.get(given[0], given[0]).replace("_", "-")
        raise ValueError(f"{'POSITION' if opt == 'position' else '--' + opt} does not apply "
                         "with --resume: the run keeps its own settings (--extend N adds games)")
    store = _store(args, create=False)
    run = store.run(args.resume)
    if run.kind not in ("rollout", "cubeful"):   # before its request is read as arguments
        raise ValueError(f"run {run.id} is {describe_run(run)}; fastbg rollout --resume "
                         "continues rollouts" + (f" (fastbg moves --resume {run.id} continues "
                                                 "candidate plays)" if run.kind == "plays" else
                                                 f" (fastbg cube --resume {run.id} continues "
                                                 "cube rollouts)" if run.kind == "cube" else ""))
    stored_blocks(store, run)          # a damaged block refused before anything is said
    games = run.games + (args.extend or 0)
    args.games = games                 # (the progress bar's total)
    if run.status == "done" and not args.extend:
        print(f"run {run.id} is finished ({run.games_done:,} games); --extend N adds games",
              file=sys.stderr)
    blocks = []
    if run.kind == "cubeful":
        res = _with_progress(args, lambda **shown: resume_rollout(
            store, run, games, runner_of(args, on_block=_collect(blocks), **shown)))
        return _report_cubeful(res, args, Position.parse(run.request["position"]),
                               MatchState(**run.request["state"]), store, blocks,
                               dict(run.request, games=games))
    res = _with_progress(args, lambda **shown: resume_rollout(
        store, run, games, runner_of(args, on_block=_collect(blocks), **shown)))
    return _report_rollout(res, args, store, blocks)


def _collect(blocks: list):
    """An ``on_block`` that keeps each block's games, counts and sums (for ``--plot``)."""
    return lambda k, n, counts, sums: blocks.append((n, counts, sums))


def _report_rollout(res, args, store=None, blocks=()) -> int:
    """Print a cubeless rollout's result (text or ``--json``, which names the ``--preset``)
    and where it is stored, and draw its convergence with ``--plot`` (``blocks`` the blocks
    played now)."""
    shown = _WithPreset(res, args.preset) if getattr(args, "preset", None) else res
    return report_run(
        shown, args, store, lambda: _format_table(res, args.workers), empty=res.games == 0,
        run=res, plot=convergence_plot(res, args, store, blocks, convergence,
                                       f"rollout of {res.position_id}"))


class _WithPreset:
    """A result whose ``to_dict()`` also names the ``--preset`` that set its settings (the
    settings record what it set, not the name)."""

    def __init__(self, res, preset: str):
        self._res, self._preset = res, preset

    def __getattr__(self, name):
        return getattr(self._res, name)

    def to_dict(self) -> dict:
        return self._res.to_dict() | {"preset": self._preset}


def _cmd_rollout(args) -> int:
    if args.plot is not None:
        check_plot_path(args.plot)    # a bad file name or no matplotlib: before any game
    if args.resume is not None:
        return _cmd_resume(args, vars(args.rollout_parser.parse_args([])))
    if args.extend is not None:
        raise ValueError("--extend is for a stored run: give --resume RUN too")
    if args.position is None:
        args.position = "start"
    if args.games is None:
        args.games = rollout_preset(args.preset).games if args.preset else DEFAULT_GAMES
    if args.cubeful:
        if args.truncate is not None or args.truncate_bearoff:
            raise ValueError("--truncate and --truncate-bearoff are for cubeless rollouts")
        given = [k for k in (*NPLY_FIELDS, "preset") if getattr(args, k) is not None]
        if given:
            opt = {"move_filter": "filter"}.get(given[0], given[0]).replace("_", "-")
            raise ValueError(f"--{opt} is for cubeless rollouts (n-ply cubeful rollouts are "
                             "not there yet)")
        _check_stop_options(args)
        return _cmd_cubeful_rollout(args)
    given = [k for k in _STATE_OPTIONS if getattr(args, k) is not None]
    if given:
        raise ValueError(f"--{given[0].replace('_', '-')} is for cubeful rollouts: add --cubeful")
    pos, state, dice = parse_game(args.position)
    opening = args.opening
    if opening is None and state.cube_owner != "centred":
        opening = False   # the start board with an owned cube: the game is under way
    if dice is None:
        dice = args.dice
    elif args.dice is not None and sorted(args.dice) != sorted(dice):
        raise ValueError(f"POSITION has {dice[0]}-{dice[1]} rolled but --dice is "
                         f"{args.dice[0]}-{args.dice[1]}: give one roll (or the same)")
    _check_stop_options(args)
    pos.check_playable()   # (rollout() checks it too): before a store file is made for it
    check_dask_options(args)
    settings = rollout_settings_of(args, dice, opening)
    with cluster_before_store(args, n_blocks(args.games, block_size_for(
            settings.policy, settings.depth))) as run_on:
        store = _store(args) if args.store is not None else None
        blocks = []
        res = _with_progress(args, lambda **shown: rollout(
            pos, args.games, settings=settings, runner=runner_of(args, **shown).replace(
                store=store, on_block=_collect(blocks), **run_on)))
    return _report_rollout(res, args, store, blocks)


def _check_stop_options(args) -> None:
    """``--until-se`` and ``--min-games`` of a rollout, cubeless or cubeful."""
    if args.min_games is not None and args.until_se is None:
        raise ValueError("--min-games is for a stop rule: give --until-se too")
    if args.until_se is not None and not 0 < args.until_se < float("inf"):
        raise ValueError(f"--until-se must be a positive, finite standard error, got {args.until_se:g}")


def _cmd_cubeful_rollout(args) -> int:
    if args.dice is not None:
        raise ValueError("--dice cannot be used with --cubeful: the cube is turned before "
                         "the first roll")
    pos, state = _cube_state(args)
    if state.beaver:     # from --beaver or POSITION's rules: the header must not claim them
        raise ValueError(beaver_refusal(args, pos, state))
    if args.x is not None and not 0 <= args.x <= 1:
        raise ValueError(f"--x must be in [0, 1], got {args.x}")
    settings = cubeful_settings_of(args, state)
    pos.check_playable()   # (cubeful_rollout() checks it too): before a store file is made
    check_dask_options(args)
    blocks = []
    with cluster_before_store(args, n_blocks(args.games, block_size_for(args.policy))) as run_on:
        store = _store(args) if args.store is not None else None
        res = _with_progress(args, lambda **shown: cubeful_rollout(
            pos, args.games, settings=settings, runner=runner_of(args, **shown).replace(
                store=store, on_block=_collect(blocks), **run_on)))
    # (the run's request: its settings as it resolved them)
    request = dict(position=pos.to_position_id(), games=args.games, **settings.replace(
        seed=res.seed, vr=res.vr, opening=res.opening).resolve(at_start=False).as_dict())
    return _report_cubeful(res, args, pos, state, store, blocks, request)


def beaver_refusal(args, pos, state) -> str:
    """Why ``fastbg rollout --cubeful`` refuses a state with beavers, and what to pass.

    The in-game cube decisions of the cubeful engines (the compiled core and the pure one)
    know no beaver, so a run would claim a rule it does not play. Beavers come from
    ``--beaver`` or from an XGID's rules field (2 or 3: eXtreme Gammon writes its money
    positions with beavers allowed; a GNU Backgammon Match ID cannot hold them)."""
    why = "cubeful rollouts do not play beavers yet (their in-game cube decisions have none)"
    if args.beaver or not _is_xgid(args.position):
        also = _is_xgid(args.position) and parse_game(args.position)[1].beaver
        return (f"--beaver: {why}; " + ("give --no-beaver instead (POSITION's XGID allows "
                                          "them too)" if also else
                                          "drop --beaver to roll the position out without them"))
    off = dataclasses.replace(state, beaver=False)
    return (f"POSITION's rules allow beavers (its XGID's rules field is "
            f"{int(state.jacoby) | 2}, as eXtreme Gammon writes money positions), and {why}: "
            f"add --no-beaver to roll it out without them"
            + (", the Jacoby rule kept" if off.jacoby else "")
            + f" (or pass {off.to_xgid(pos)}, the same position with beavers off)")


def cubeful_settings_of(args, state) -> CubefulSettings:
    """The one place where ``fastbg rollout --cubeful``'s options become the run's settings
    (:class:`~fastbg.rollouts.cubesettings.CubefulSettings`; each option is named as its
    field): ``state`` the cube and match state the command made of POSITION and the cube
    options."""
    options = {name: getattr(args, name) for name in CubefulSettings.fields() if name != "state"}
    return CubefulSettings(**options | dict(
        state=state, met=None if state.is_money else (args.met or None),
        quasi_random=args.quasi_random is not False))


def _report_cubeful(res, args, pos, state, store=None, blocks=(), request=None) -> int:
    """Print a cubeful rollout's result (text or ``--json``) and where it is stored, and draw
    its convergence with ``--plot`` (``blocks`` the blocks played now, ``request`` the run's
    position, games and resolved settings)."""
    unit = "cubeful equity" if state.is_money else "equity (EMG)"
    return report_run(
        res, args, store, lambda: _format_cubeful(res, pos, state, args.workers),
        empty=res.games == 0,
        plot=convergence_plot(res, args, store, blocks, lambda b: convergence(
            b, "cubeful", point=convergence_point(request), unit=unit),
            f"cubeful rollout of {pos.to_position_id()}"))


def _stop_text(res, se: float) -> str:
    """The header's account of a stop rule (``--until-se``), ``se`` the result's standard
    error of the equity."""
    stop = res.settings.get("stop_rule")
    if not stop or res.interrupted:
        return ""
    if res.games < res.games_requested:
        return f" (stopped at standard error {se:.4f} <= {stop['until_se']:g})"
    if not se <= stop["until_se"]:
        return (f" (stop rule not met: standard error {se:.4f} > {stop['until_se']:g} after "
                "the most games asked for)")
    return ""


def _format_cubeful(res, pos, state, workers_asked: int | None = None) -> str:
    """The text of a cubeful rollout's result; ``workers_asked``: the command's
    ``--workers`` (:func:`workers_text`)."""
    z = normal_quantile(0.975)
    lines = [("INTERRUPTED: " if res.interrupted else "")
             + f"Cubeful rollout of {pos.to_position_id()}: "
             + games_played(res.games, res.games_requested, res.interrupted)
             + _stop_text(res, res.stderr),
             _describe_state(state),
             f"policy {res.policy} (checker play), cube decisions by Janowski's model on the "
             f"network's 0-ply probabilities, x = "
             + ("GNU Backgammon's default by position (0 on the last roll)" if res.x is None
                else f"{res.x:g}"),
             f"engine {res.engine}, {workers_text(res, workers_asked)}, seed {res.seed}"
             + (", opening roll" if res.opening else "")
             + (", variance reduction (luck by the nn at 0 ply, valued at the cube of each "
                "roll)" if res.vr else ", no variance reduction")
             + (", quasi-random dice" if res.settings["dice"].startswith("quasi")
                else ", pseudo-random dice"), "",
             "                      estimate   std.err    95% confidence interval"]
    if not state.is_money:
        # a mean of match winning chances: the normal interval, clipped to [0, 1]
        lo, hi = max(0.0, res.mwc - z * res.mwc_stderr), min(1.0, res.mwc + z * res.mwc_stderr)
        lines.append(f"  match winning chance {res.mwc:8.4f}  {num(res.mwc_stderr, '8.4f')}   "
                     f"[{num(lo, '.4f')}, {num(hi, '.4f')}]")
    lo, hi = res.equity - z * res.stderr, res.equity + z * res.stderr
    label = "cubeful equity" if state.is_money else "equity (EMG)"
    lines.append(f"  {label:<20}{res.equity:+8.4f}  {num(res.stderr, '8.4f')}   "
                 f"[{num(lo, '+.4f')}, {num(hi, '+.4f')}]")
    lines.append("  (points per game per unit of the starting cube)" if state.is_money else
                 "  (MWC as a money equity, per unit of the starting cube)")
    lines += ["", f"  doubled in {res.doubled:.1%} of games, passed in {res.passed:.1%}; "
              f"mean final cube {res.mean_cube:.2f}", "  results:"]
    lines += [f"    {k:<18}{v:8.4f}" for k, v in res.outcomes.items()]
    if res.by_first_roll:
        mwc = "" if state.is_money else "      mwc"
        lines += ["", f"  by first roll:       games    equity   std.err  doubled   passed{mwc}"]
        for r in res.by_first_roll:
            who = f" ({r['first']})" if "first" in r else ""
            lines.append(f"    {r['roll'] + who:<16} {r['games']:>7,} {num(r['equity'], '+9.4f')} "
                         f"{num(r['stderr'], '9.4f')} {num(r['doubled'], '8.4f')} "
                         f"{num(r['passed'], '8.4f')}"
                         + ("" if state.is_money else f" {num(r['mwc'], '8.4f')}"))
        lines += first_roll_legend(res.by_first_roll)
    lines += ["", played_text(res)]
    return "\n".join(lines)


COMMANDS = {"rollout": _cmd_rollout}
