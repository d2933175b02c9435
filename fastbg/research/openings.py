"""Opening tables: the 15 opening rolls, and the 21 replies to an opening play.

Each roll is a row: its candidate plays rolled out side by side with the same dice
(:func:`fastbg.rollouts.plays.rollout_plays`: common random numbers, variance reduction and
quasi-random dice by default), the roll fixed and the game going on with ordinary dice. The
rows are independent rollouts, each with its own seed (:func:`~fastbg.research.table.derived_seed`
of the table's seed and the roll), so their standard errors combine as independent ones.
"""
from __future__ import annotations

import math
import re
import time
from typing import Callable

import numpy as np

from ..formats.dice import parse_dice
from ..game.plays import find_play
from ..game.position import Position
from ..rollouts.blocks import block_size_for, n_blocks, resolve_workers
from ..rollouts.settings import DEFAULT_POLICY, draw_seed
from ..rollouts.plays import (DEFAULT_MAX_PLAYS, DEFAULT_WITHIN, PLAYS_BLOCK_SIZE, check_plays_options,
                              rank_plays, rollout_plays)
from ..rollouts.settings import rollout_settings
from .table import StoredTable, TableResult, derived_seed, run_rows, table_cluster

__all__ = ["OPENING_ROLLS", "REPLY_ROLLS", "openings_table", "replies_table", "parse_opening",
           "parse_rolls", "row_blocks"]

#: The 15 opening rolls (no doubles: DESIGN section 3, rule 8), larger die first.
OPENING_ROLLS = tuple((hi, lo) for hi in range(2, 7) for lo in range(1, hi))
#: The 21 rolls of a reply, larger die first, doubles included.
REPLY_ROLLS = tuple((hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1))

#: First words of the seed keys of the rows (:func:`derived_seed`): "OP", "RE".
_OPENINGS_KEY, _REPLIES_KEY = 0x4F50, 0x5245


def _roll_text(d) -> str:
    return f"{d[0]}-{d[1]}"


def _roll_items(text: str, what: str) -> list[str]:
    """The rolls of a comma-separated string (``"31,42"``; spaces separate them too): an
    empty entry between commas, or at either end, is an error naming it (``31,,42`` was
    read as 31,42 without a word); a string of no roll at all gives ``[]``."""
    entries = text.split(",")
    if not "".join(entries).strip():
        return []
    empty = next((k for k, e in enumerate(entries, 1) if not e.strip()), None)
    if empty is not None:
        raise ValueError(f"entry {empty} of {text!r} is empty: give {what} in each, as in 31,42")
    return [r for e in entries for r in e.split()]


def parse_rolls(rolls, allowed, what: str) -> tuple:
    """``rolls`` (None for all of ``allowed``, or a list of dice in any form
    :func:`parse_dice` reads, as a comma-separated string too) as a tuple of ``allowed``'s
    rolls in ``allowed``'s order; ValueError for a roll not in ``allowed`` or given twice, or
    an empty entry of the string (``31,,42``)."""
    if rolls is None:
        return tuple(allowed)
    items = _roll_items(rolls, what) if isinstance(rolls, str) else list(rolls)
    if not items:
        raise ValueError(f"no roll given: the list is empty (give {what} or several, e.g. 31,42)")
    chosen = set()
    for r in items:
        d = tuple(sorted(parse_dice(r), reverse=True))
        if d not in allowed:
            raise ValueError(f"{_roll_text(d)} is not {what}" + (
                ": an opening roll is never a double (each side rolls one die, ties are "
                "rolled again)" if d[0] == d[1] else ""))
        if d in chosen:
            raise ValueError(f"{_roll_text(d)} is given twice")
        chosen.add(d)
    return tuple(r for r in allowed if r in chosen)


def parse_opening(text, engine: str = "cython") -> tuple[tuple[int, int], str]:
    """An opening play from its text: the roll and the play's notation.

    Parameters
    ----------
    text : str
        ``"31"`` (the roll: its best play by the evaluator at 0 ply), ``"31 8/5 6/5"`` or
        ``"3-1: 8/5 6/5"`` (the roll and a play), or ``"8/5 6/5"`` (a play alone, when one
        opening roll makes it).

    Returns
    -------
    (dice, move)
        The roll, larger die first, and the play's notation as
        :func:`fastbg.legal_plays` writes it.

    Raises
    ------
    ValueError
        A double, a play that no opening roll makes (or not the roll given), a play that two
        rolls make without the roll given (``24/16`` is 6-2's and 5-3's).
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("give an opening: a roll (31), a roll and a play ('31 8/5 6/5') or a "
                         "play ('8/5 6/5')")
    s = text.strip()
    m = re.fullmatch(r"(\d\s*-?\s*\d)\s*[:,]?\s*(.*)", s)
    if m and not re.match(r"\d+/", s):
        dice = parse_rolls([m.group(1)], OPENING_ROLLS, "an opening roll")[0]
        move = m.group(2).strip()
        if not move:
            return dice, rank_plays("start", dice, engine=engine)[0].move
        return dice, find_play("start", dice, move, engine=engine).move
    found = []
    for dice in OPENING_ROLLS:
        try:
            found.append((dice, find_play("start", dice, s, engine=engine).move))
        except ValueError:
            continue
    if not found:
        raise ValueError(f"{s!r} is not a play of any opening roll (give the roll too, e.g. "
                         "'31 8/5 6/5', to see its legal plays)")
    if len(found) > 1:
        raise ValueError(f"{s!r} is a play of " + " and of ".join(_roll_text(d) for d, _ in found)
                         + f": give the roll too, e.g. '{found[0][0][0]}{found[0][0][1]} {s}'")
    return found[0]


def _candidate_rows(position, rolls, key, games, seed, run_args, policy, engine, options,
                    stored, progress, on_row, on_interrupt):
    """The rows of an openings or replies table: one candidate-play rollout per roll
    (``run_args``: its ``workers`` and ``dask``, :func:`~fastbg.research.table.table_cluster`)."""

    def play_row(j, dice, store_args, on_interrupt):
        # min_plays 1: a row wants its best play's equity, and a roll with one play within
        # the window (3-1, 4-2, 6-1 of the openings) rolls out that play alone, as measured
        res = rollout_plays(position, dice, games, seed=derived_seed(seed, key, *dice),
                            policy=policy, engine=engine, progress=progress,
                            on_interrupt=on_interrupt, min_plays=1, **run_args, **options,
                            **store_args)
        if res.interrupted or not res.plays:
            return None, True, res.run_id, res.stored_games
        best = res.plays[0]
        row = {"roll": _roll_text(dice), "dice": list(dice), "position_id": res.position_id,
               "best": best["move"], "equity": best["equity"],
               "stderr": best["stderr"]["equity"], "games": res.games,
               "plays": res.plays, "seed": res.seed}
        if res.run_id is not None:
            row["run_id"] = res.run_id
        return row, False, res.run_id, res.stored_games

    return run_rows(rolls, play_row, stored,
                    on_row=None if on_row is None else lambda label, j, n: on_row(
                        _roll_text(rolls[j]), j, n), on_interrupt=on_interrupt)


def _options(top, within, max_plays, ply, vr, quasi_random, prune_se, min_games) -> dict:
    return dict(top=top, within=within, max_plays=max_plays, ply=ply, vr=vr,
                quasi_random=quasi_random, prune_se=prune_se, min_games=min_games)


def _settings(name, description, games, entropy, policy, engine, options, **extra) -> dict:
    vr = options["vr"]
    return rollout_settings(
        policy=policy, seed=entropy, games=games, block_size=PLAYS_BLOCK_SIZE, vr=vr,
        first_roll="rolled", engine=engine,
        dice_method="quasi-random (first two rolls stratified), a stream per game"
        if options["quasi_random"] else "pseudo-random, a stream per game",
        table=name, description=description, row_seeds="derived_seed(seed, key, d1, d2)",
        candidates={k: options[k] for k in ("top", "within", "max_plays", "ply")},
        prune=None if options["prune_se"] is None else {"prune_se": options["prune_se"],
                                                        "min_games": options["min_games"]},
        **extra)


def openings_table(
    games: int = 1296,
    seed: int | None = None,
    workers: int | None = None,
    policy: str = DEFAULT_POLICY,
    engine: str = "cython",
    *,
    rolls=None,
    top: int | None = None,
    within: float = DEFAULT_WITHIN,
    max_plays: int = DEFAULT_MAX_PLAYS,
    ply: int = 0,
    vr: bool | None = None,
    quasi_random: bool = True,
    prune_se: float | None = None,
    min_games: int | None = None,
    progress: Callable[[int], None] | None = None,
    on_row: Callable[[str, int, int], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    store=None,
    run_id: int | None = None,
    dask=None,
) -> TableResult:
    """The opening rolls' candidate plays, rolled out, and the equity of winning the opening roll.

    Parameters
    ----------
    games : int
        Games per candidate play of each roll.
    seed, workers, policy, engine
        As :func:`fastbg.rollout`. Roll ``(d1, d2)`` is rolled out with the seed
        ``derived_seed(seed, 0x4F50, d1, d2)`` (:func:`~fastbg.research.table.derived_seed`).
    rolls : list of dice, optional
        Some opening rolls only (``["31", "42"]``, or ``"31,42"``); default all 15.
    top, within, max_plays, ply, vr, quasi_random, prune_se, min_games
        The candidates and the rollout of each roll, as :func:`fastbg.rollout_plays`
        (default: the plays within 0.10 of the best at 0 ply, at most 8; variance reduction
        with the nn policies; quasi-random dice; no pruning, so every candidate plays every
        game).
    progress : callable, optional
        Called with the games per candidate of each finished block (all rows together:
        ``len(rolls) * games`` in all without pruning).
    on_row : callable, optional
        ``on_row(roll, j, n)`` as row ``j`` of ``n`` starts (``roll`` "3-1").
    on_interrupt : callable, optional
        As :func:`fastbg.rollout`.
    store, run_id : optional
        Keep the table in a results store (:class:`~fastbg.rollouts.store.ResultsStore`
        or its file), each roll a row of it; ``run_id``: continue that stored openings
        table (the same settings; ValueError otherwise).
    dask : bool or str or distributed.Client, optional
        Play the rows' blocks on a Dask cluster, as :func:`fastbg.rollout` (``True``: a
        local cluster of ``workers`` processes, started once for the whole table; an
        address ``"tcp://HOST:PORT"`` or a ``distributed.Client``: that cluster). The same
        numbers, seeds and stored runs as threads; a table stored on one may be resumed on
        the other. ``seconds`` does not count starting a local cluster.

    Returns
    -------
    TableResult
        ``rows``: per roll, ``roll`` ("3-1"), ``dice``, ``position_id`` (the start),
        ``best`` (the best play's notation), ``equity`` and ``stderr`` (its cubeless
        equity for the player who plays the roll, after the play), ``games``, ``plays``
        (every candidate, as :attr:`fastbg.rollouts.plays.PlaysRolloutResult.plays`:
        equity, standard error, paired difference from the best and its standard error,
        probability of being best, the five probabilities), ``seed`` and ``run_id``.
        ``summary``: ``equity`` and ``stderr`` of winning the opening roll (the mean of the
        15 rolls' best equities, each roll being 2/30 of the openings; only when every roll
        is in the table), ``rolls`` done.

    Raises
    ------
    ValueError
        A bad roll or option (as :func:`fastbg.rollout_plays`), a stored run that is not
        an openings table or has other settings.

    Notes
    -----
    The best play's estimate is the largest of the candidates' estimates, which is biased
    upwards when several candidates are within a standard error of each other (by at most
    a fraction of the paired standard error); the standard error of the opening roll's
    equity is ``sqrt(sum se_i^2) / 15`` (independent rows).

    **Reproducibility.** The numbers depend only on the seed and the settings, for any
    ``workers``, on threads or a Dask cluster, whether the table ran through or was
    interrupted and resumed.
    """
    rolls = parse_rolls(rolls, OPENING_ROLLS, "an opening roll")
    return _table("openings", "openings", "start", "the opening rolls", rolls, _OPENINGS_KEY, games, seed,
                  workers, policy, engine,
                  _options(top, within, max_plays, ply, vr, quasi_random, prune_se, min_games),
                  progress, on_row, on_interrupt, store, run_id, dask, extra_request={},
                  summary=_openings_summary)


def row_blocks(games: int, policy: str) -> int:
    """Blocks of one row of the openings or replies table: the most worker processes its
    local Dask cluster gets.

    Parameters
    ----------
    games : int
        Games per candidate play.
    policy : str
        The rollouts' policy (its block size, capped at the candidate rollouts').

    Returns
    -------
    int
    """
    return n_blocks(games, min(block_size_for(policy), PLAYS_BLOCK_SIZE))


def _table(name, label, position, description, rolls, key, games, seed, workers, policy, engine,
           options, progress, on_row, on_interrupt, store, run_id, dask, extra_request, summary):
    """A table of candidate-play rollouts, one row per roll of ``rolls`` from ``position``;
    ``label`` names it in the store's list of runs."""
    games, vr, quasi_random, prune_se, min_games = check_plays_options(games, policy, engine,
                                                                       **options)
    options.update(vr=vr, quasi_random=quasi_random, prune_se=prune_se, min_games=min_games)
    resolve_workers(workers)
    entropy = draw_seed(seed)
    request = dict(position=label, table=name, games=games, seed=entropy, policy=policy,
                   rolls=[list(r) for r in rolls], **extra_request, **options)
    settings = _settings(name, description, games, entropy, policy, engine, options)
    # the cluster before the store: a scheduler that does not answer leaves the store untouched
    with table_cluster(dask, workers, row_blocks(games, policy)) as (cl, run_args):
        stored = StoredTable(store, run_id, name, request, settings)
        with stored.aborted_on_error():
            t0 = time.perf_counter()   # (a local cluster's start-up is not counted)
            rows, interrupted, stored_games = _candidate_rows(
                position, rolls, key, games, entropy, run_args, policy, engine, options, stored,
                progress, on_row, on_interrupt)
            seconds = time.perf_counter() - t0
    result = TableResult(table=name, title=f"{name}: {description}", rows=rows,
                         summary=summary(rows, rolls), games=games, seed=entropy,
                         settings=settings, seconds=seconds,
                         interrupted=interrupted, run_id=stored.run_id,
                         stored_games=stored_games, dask=None if cl is None else cl.address,
                         planned_rows=len(rolls))
    stored.finish(result)
    return result


def _openings_summary(rows, rolls) -> dict:
    out = {"rolls": len(rows)}
    if len(rows) == len(OPENING_ROLLS):
        out["equity"] = math.fsum(r["equity"] for r in rows) / len(rows)
        out["stderr"] = math.sqrt(math.fsum(r["stderr"] ** 2 for r in rows)) / len(rows)
        out["meaning"] = ("cubeless equity of winning the opening roll: the mean of the 15 "
                          "rolls' best plays")
    return out


def _replies_summary(rows, rolls) -> dict:
    out = {"rolls": len(rows)}
    if len(rows) == len(REPLY_ROLLS):
        w = [(1 if r["dice"][0] == r["dice"][1] else 2) / 36 for r in rows]
        out["equity"] = -math.fsum(wi * r["equity"] for wi, r in zip(w, rows))
        out["stderr"] = math.sqrt(math.fsum((wi * r["stderr"]) ** 2 for wi, r in zip(w, rows)))
        out["meaning"] = ("cubeless equity of the opening play for the side that made it: "
                          "minus the 36 replies' best equities, averaged")
    return out


def replies_table(
    opening,
    games: int = 1296,
    seed: int | None = None,
    workers: int | None = None,
    policy: str = DEFAULT_POLICY,
    engine: str = "cython",
    *,
    rolls=None,
    top: int | None = None,
    within: float = DEFAULT_WITHIN,
    max_plays: int = DEFAULT_MAX_PLAYS,
    ply: int = 0,
    vr: bool | None = None,
    quasi_random: bool = True,
    prune_se: float | None = None,
    min_games: int | None = None,
    progress: Callable[[int], None] | None = None,
    on_row: Callable[[str, int, int], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    store=None,
    run_id: int | None = None,
    dask=None,
) -> TableResult:
    """The 21 replies to an opening play, each with its candidate plays rolled out.

    Parameters
    ----------
    opening : str
        The opening play (:func:`parse_opening`): ``"31"`` (its best play at 0 ply),
        ``"31 8/5 6/5"`` or ``"8/5 6/5"``.
    games, seed, workers, policy, engine, rolls, top, within, max_plays, ply, vr,
    quasi_random, prune_se, min_games, progress, on_row, on_interrupt, store, run_id, dask
        As :func:`openings_table`; ``rolls`` are replies (doubles included), and reply
        ``(d1, d2)`` is rolled out with the seed ``derived_seed(seed, 0x5245, d1, d2)``.

    Returns
    -------
    TableResult
        ``rows`` as :func:`openings_table`'s, per reply, equities for the side that replies
        (after its play); ``summary``: ``opening`` (the roll and play), ``equity`` and
        ``stderr`` of the opening play for the side that made it, minus the weighted mean of
        the replies' best equities (a double 1/36, another roll 2/36; only with all 21
        replies), ``rolls`` done.

    Raises
    ------
    ValueError
        As :func:`openings_table`, and a bad opening (:func:`parse_opening`).

    Notes
    -----
    **Reproducibility.** As :func:`openings_table`.
    """
    dice, move = parse_opening(opening, engine=engine)
    after = find_play("start", dice, move, engine=engine)
    position = Position(np.ascontiguousarray(after.board[::-1]))
    rolls = parse_rolls(rolls, REPLY_ROLLS, "a roll")
    opening_text = f"{_roll_text(dice)} {move}"

    def summary(rows, rolls_):
        return {"opening": opening_text, **_replies_summary(rows, rolls_)}

    return _table("replies", f"replies {opening_text}", position,
                  f"the replies to {opening_text}", rolls, _REPLIES_KEY,
                  games, seed, workers, policy, engine,
                  _options(top, within, max_plays, ply, vr, quasi_random, prune_se, min_games),
                  progress, on_row, on_interrupt, store, run_id, dask,
                  extra_request={"opening": opening_text, "opening_position":
                                 position.to_position_id()},
                  summary=summary)
