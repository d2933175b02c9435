"""``fastbg moves --eval`` and ``--rollout``: a roll's plays ranked, or rolled out side by side.

A rollout of candidate plays is a run of the results store with ``--store`` (kind
``"plays"``): listed by ``fastbg runs``, continued after Ctrl-C, ``kill -9`` or a crash, or
extended, by ``fastbg moves --resume RUN``, and drawn with ``--plot`` (each play's equity
and its 95% interval after each block).
"""
from __future__ import annotations

import sys

from ..research import convergence
from ..research.plots import check_plot_path
from ..rollouts.blocks import n_blocks
from ..rollouts.candidates import PlaysSettings
from ..rollouts.plays import plays_block_size, rank_plays, rollout_plays
from ..rollouts.resume import resume_rollout
from ..rollouts.runner import Runner
from ..rollouts.store import ResultsStore, describe_run
from ..cube.decision import is_plain_money
from ..cube.met import DEFAULT_MET
from ..game import parse_game
from ..rollouts.cubedecision import state_dict
from ..spec.nply import move_filter
from .common import (_load_met, convergence_plot, games_played, num, plural, print_json,
                     report_run, roll_text, stored_blocks)
from .state import _describe_state, state_with_options
from .rollouts import _with_progress, check_dask_options, cluster_before_store, workers_text

__all__ = ["moves_eval", "moves_rollout", "moves_resume", "plays_settings_of",
           "PRUNED_LEGEND", "RESUME_OPTIONS"]

#: The line under a table of candidate plays some of which --prune-se dropped: their numbers
#: are over the games they played, not over the others' games.
PRUNED_LEGEND = ("  (pruned: dropped by --prune-se after the games shown; its equity is over "
                 "those games only, and its diff and s.e. are paired with the best play's "
                 "results on the same games)")

#: Options of `fastbg moves` that a resumed run takes from the store (POSITION, DICE, --games
#: and the settings), or that are not for --resume.
RESUME_OPTIONS = ("position", "dice", "games", "seed", "policy", "top", "play", "ply", "vr",
                  "quasi_random", "prune_se", "min_games", "eval")


def moves_eval(pos, dice, args) -> int:
    """``fastbg moves POSITION DICE --eval``: every play ranked by the nn (``--ply``,
    ``--filter``), cubeless or at the score (the cube and match options, ``--cubeful``)."""
    name = getattr(args, "move_filter", None) or "normal"
    mf = move_filter(name)
    _, base, _ = parse_game(args.position)
    state = state_with_options(args, base, pos)
    cubeful = not is_plain_money(state) if args.cubeful is None else args.cubeful
    table = None if state.is_money or not cubeful else _load_met(args.met or DEFAULT_MET)
    ranked = rank_plays(pos, dice, ply=args.ply, engine=args.engine, move_filter=mf,
                        state=state, cubeful=cubeful, met=table)
    match = cubeful and not state.is_money
    ranking = ("match winning chance" if match else "cubeful equity" if cubeful
               else "cubeless equity")
    if args.json:
        best = ranked[0] if ranked else None
        plays = []
        for r in ranked:
            d = {"move": r.move, "position_id": r.position_id, **r.probabilities,
                 "diff": r.value - best.value, "ply": r.ply}
            if cubeful:
                d["cubeful_equity"] = r.cubeful_equity
            if match:
                d["mwc"] = r.mwc
                d["mwc_diff"] = r.mwc - best.mwc
            plays.append(d)
        print_json({"position_id": pos.to_position_id(), "dice": list(dice), "ply": args.ply,
                    "move_filter": ({"name": name, **mf.as_dict()} if args.ply else None),
                    "ranking": ranking, "cubeful": cubeful, "state": state_dict(state),
                    "met": None if table is None else (table.name or table.source),
                    "plays": plays}, indent=2)
        return 0
    how = f"by the nn at {args.ply} ply"
    if args.ply:
        how += f", move filter {name} ({mf.describe(args.ply)})"
    if cubeful:
        print(f"Position {pos.to_position_id()}, roll {roll_text(dice)}: "
              f"{plural(len(ranked), 'legal play')}, ranked by {ranking} {how}")
        print(f"  {_describe_state(state, table)}; each play valued with the opponent's cube "
              "decision by Janowski's model (x: each position's own)")
    else:
        print(f"Position {pos.to_position_id()}, roll {roll_text(dice)}: "
              f"{plural(len(ranked), 'legal play')}, {how} (cubeless, mover's view)")
    if not ranked:
        print("  no legal play: the position stays as it is and the turn passes")
        return 0
    width = max(len(r.move) for r in ranked)
    plies = f" {'ply':>3}" if args.ply else ""
    best = ranked[0]
    if match:
        head = f"{'MWC':>7} {'diff':>7} {'EMG':>8} {'cubeless':>8}"
    elif cubeful:
        head = f"{'cubeful':>8} {'diff':>7} {'cubeless':>8}"
    else:
        head = f"{'equity':>8} {'diff':>7}"
    print(f"  {'':>4}  {'play':<{width}}  {head}   {'win':>6} {'w g':>6} "
          f"{'w bg':>6} {'l g':>6} {'l bg':>6}{plies}")
    for i, r in enumerate(ranked, 1):
        p = r.probabilities
        if match:
            cols = (f"{r.mwc:7.2%} {100 * (r.mwc - best.mwc):+6.2f}% {r.cubeful_equity:+8.4f} "
                    f"{r.equity:+8.4f}")
        elif cubeful:
            cols = f"{r.cubeful_equity:+8.4f} {r.value - best.value:+7.4f} {r.equity:+8.4f}"
        else:
            cols = f"{r.equity:+8.4f} {r.equity - best.equity:+7.4f}"
        print(f"  {i:>4}. {r.move:<{width}}  {cols}   "
              f"{p['win']:6.3f} {p['win_gammon']:6.3f} {p['win_backgammon']:6.3f} "
              f"{p['lose_gammon']:6.3f} {p['lose_backgammon']:6.3f}"
              + (f" {r.ply:>3}" if args.ply else ""))
    if args.ply and any(r.ply < args.ply for r in ranked):
        print(f"  (ply: the plays the move filter stopped short of {args.ply} ply keep the value "
              "of the last ply they reached, and are listed after the others)")
    if match:
        print("  (MWC: the mover's match winning chance after the play; diff in MWC points; "
              "EMG: the MWC as equity per unit of the current cube; cubeless: money equity)")
    elif cubeful:
        print("  (cubeful: the mover's equity per unit of the current cube after the play; "
              "cubeless: without the cube)")
    return 0


def _prune_text(prune, games) -> str:
    """The header's account of the pruning stop rule."""
    if prune["min_games"] >= games:
        return (f"; no pruning (--prune-se): its first stage, after "
                f"{plural(prune['min_games'], 'game')}, is not before the end")
    return (f"; plays {prune['prune_se']:g} SE behind the best dropped after "
            f"{plural(prune['min_games'], 'game')} and every {prune['stage_games']:,} after")


def plays_settings_of(args) -> PlaysSettings:
    """The one place where ``fastbg moves --rollout``'s options become the run's settings
    (:class:`~fastbg.rollouts.candidates.PlaysSettings`): ``--play`` is ``plays``; the
    candidate window (``within``, ``max_plays``, ``min_plays``) is the default."""
    return PlaysSettings(seed=args.seed, policy=args.policy, top=args.top, plays=args.play,
                         ply=args.ply, vr=args.vr, quasi_random=args.quasi_random is not False,
                         prune_se=args.prune_se, min_games=args.min_games)


def _check_plot(args) -> None:
    """``--plot FILE``: a file that can be written and matplotlib, before any game; and a
    run whose every play plays every game (one curve a play)."""
    if args.plot is None:
        return
    if args.prune_se is not None:
        raise ValueError("--plot draws one curve a play over all the games, and --prune-se "
                         "drops plays on the way: drop one of them")
    check_plot_path(args.plot)


def moves_rollout(pos, dice, args) -> int:
    """``fastbg moves POSITION DICE --rollout``: the candidates rolled out side by side."""
    if args.games is None:
        args.games = 1296
    _check_plot(args)
    settings = plays_settings_of(args)
    pos.check_playable()   # (rollout_plays checks it too): before a store file is made for it
    check_dask_options(args)
    blocks = n_blocks(args.games, plays_block_size(settings.policy))
    with cluster_before_store(args, blocks) as run_on:
        store = ResultsStore(args.store or None) if args.store is not None else None
        kept = []
        res = _with_progress(args, lambda **shown: rollout_plays(
            pos, dice, args.games, settings=settings, runner=Runner(
                engine=args.engine, store=store, on_block=_collect(kept), **run_on, **shown)))
    return _report(res, args, store, kept)


def moves_resume(args, parser_defaults: dict) -> int:
    """``fastbg moves --resume RUN [--extend N]``: a stored rollout of candidate plays
    continued, extended or read again, with its own position, roll and settings."""
    given = [k for k in RESUME_OPTIONS if getattr(args, k) != parser_defaults.get(k)]
    if given:
        opt = given[0]
        name = opt.upper() if opt in ("position", "dice") else "--" + opt.replace("_", "-")
        raise ValueError(f"{name} does not apply with --resume: the run keeps its own position, "
                         "roll and settings (--extend N adds games)")
    store = ResultsStore(args.store or None, create=False)
    run = store.run(args.resume)
    if run.kind != "plays":            # before its request is read as rollout_plays()'s
        raise ValueError(f"run {run.id} is {describe_run(run)}; fastbg moves --resume "
                         "continues rollouts of candidate plays"
                         + (" (fastbg rollout --resume continues rollouts)"
                            if run.kind == "rollout" else ""))
    if args.plot is not None and run.request.get("prune_se") is not None:
        raise ValueError("--plot draws one curve a play over all the games, and this run "
                         "prunes plays on the way (--prune-se)")
    if args.plot is not None:
        check_plot_path(args.plot)
    stored_blocks(store, run)          # a damaged block refused before anything is said
    games = run.games + (args.extend or 0)
    if run.status == "done" and not args.extend:
        print(f"run {run.id} is finished ({run.games_done:,} games); --extend N adds games",
              file=sys.stderr)
    args.games = games
    kept = []
    res = _with_progress(args, lambda **shown: resume_rollout(
        store, run, games, Runner(engine=args.engine, workers=args.workers, dask=args.dask,
                                  on_block=_collect(kept), **shown)))
    return _report(res, args, store, kept)


def _collect(blocks: list):
    """An ``on_block`` that keeps each block's games, counts and sums (for ``--plot``)."""
    return lambda k, n, counts, sums: blocks.append((n, counts, sums))


def _report(res, args, store, blocks) -> int:
    """Print a rollout of candidate plays (text or ``--json``), draw its ``--plot``, say
    where it is stored; the exit status."""
    return report_run(
        res, args, store, lambda: format_plays(res, args.workers), empty=res.games == 0,
        command="moves",
        plot=convergence_plot(res, args, store, blocks, lambda b: convergence(
            b, "plays", res.settings["candidate_moves"]),
            f"{roll_text(res.dice)} in {res.position_id}"))


def format_plays(res, workers_asked: int | None = None) -> str:
    """The text of a rollout of candidate plays (:class:`~fastbg.rollouts.plays.
    PlaysRolloutResult`); ``workers_asked``: the command's ``--workers``."""
    st = res.settings
    head = "INTERRUPTED: " if res.interrupted else ""
    some_pruned = any(p.get("pruned") for p in res.plays)
    each = "a play, fewer for the pruned plays" if some_pruned else "each"
    lines = [f"{head}Rollout of {plural(len(res.plays), 'play')} of {roll_text(res.dice)} in "
             f"{res.position_id}: {games_played(res.games, st['games'], res.interrupted)} "
             f"{each}, the same dice for every play",
             f"policy {st['policy']}, engine {st['engine']}, {workers_text(res, workers_asked)}, "
             f"seed {res.seed}"
             + (", variance reduction" if st["vr"] else "")
             + (", quasi-random dice" if st["dice"].startswith("quasi") else "")
             + f"; candidates {st['candidates']}"
             + (f" by {st['candidates_by']}" if st.get("candidates_by") else "")
             + (_prune_text(st["prune"], res.games) if st.get("prune") else ""), ""]
    width = max(len(p["move"]) for p in res.plays)
    lines.append(f"  {'play':<{width}}  {'equity':>8} {'s.e.':>6}  {'diff':>7} {'s.e.':>6}  "
                 f"{'P(best)':>7}   {'win':>6} {'w g':>6} {'l g':>6}   {'eval':>7}")
    for p in res.plays:
        pb = num(p["p_best"], "7.1%") if p["p_best"] is not None else f"{'pruned':>7}"
        lines.append(f"  {p['move']:<{width}}  {p['equity']:+8.4f} "
                     f"{num(p['stderr']['equity'], '6.4f')}  {p['diff']:+7.4f} "
                     f"{num(p['diff_stderr'], '6.4f')}  {pb}   {p['win']:6.3f} "
                     f"{p['win_gammon']:6.3f} {p['lose_gammon']:6.3f}   {p['eval_equity']:+7.4f}"
                     + (f"   ({p['games']:,} games)" if p.get("pruned") else ""))
    lines += ["", "  (cubeless equities, mover's view; diff: from the best play, with the "
                  "standard error of the paired difference; eval: the candidate's nn equity)"]
    if some_pruned:
        lines.append(PRUNED_LEGEND)
    if res.stored_games >= res.games:
        lines.append(f"  all {res.games:,} games of each play read from the store")
    else:
        lines.append(f"  {res.seconds:.2f} s" + (
            f" ({res.games - res.stored_games:,} games a play played now, "
            f"{res.stored_games:,} read from the store)" if res.stored_games else ""))
    return "\n".join(lines)
