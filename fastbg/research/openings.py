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
from dataclasses import dataclass

import numpy as np

from ..formats.dice import parse_dice
from ..game.plays import find_play
from ..game.position import Position
from ..rollouts.blocks import check_games, n_blocks
from ..rollouts.candidates import DEFAULT_MAX_PLAYS, DEFAULT_WITHIN, PlaysSettings
from ..rollouts.plays import PLAYS_BLOCK_SIZE, plays_block_size, rank_plays, rollout_plays
from ..rollouts.runner import Runner, configure
from ..rollouts.settings import (DEFAULT_POLICY, SettingsBase, draw_seed, resolve_vr,
                                 rollout_settings)
from .table import (StoredTable, TableResult, check_table_runner, derived_seed, row_runner,
                    run_rows, table_cluster)

__all__ = ["OPENING_ROLLS", "REPLY_ROLLS", "openings_table", "replies_table", "parse_opening",
           "parse_rolls", "row_blocks", "OpeningsSettings", "RepliesSettings"]

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


@dataclass(frozen=True, kw_only=True)
class OpeningsSettings(SettingsBase):
    """The settings of the openings table (:func:`openings_table`): everything its numbers
    depend on besides the games per candidate play.

    Frozen and validated when made (ValueError naming the first bad setting); its
    :meth:`~fastbg.rollouts.settings.SettingsBase.as_dict` is what the results store records
    as the table's request beside ``position`` (the table's label), ``table`` and ``games``.
    Each row is a rollout of candidate plays with the settings :meth:`row` gives.

    Attributes
    ----------
    seed : int or None
        Root seed; None: fresh entropy drawn at the start (and reported).
    policy : str
        Checker play of both sides.
    rolls : tuple of (int, int)
        The rolls of the table, larger die first, in the table's order (given as None for
        all of them, ``"31,42"`` or a list of dice).
    top, within, max_plays, ply, vr, quasi_random, prune_se, min_games
        The candidates and the rollout of each roll, as
        :class:`~fastbg.rollouts.candidates.PlaysSettings`.

    Examples
    --------
    >>> s = OpeningsSettings(seed=1, rolls="42,31")
    >>> s.rolls
    ((3, 1), (4, 2))
    >>> OpeningsSettings(**s.as_dict()) == s
    True
    """

    run_arguments = ("position", "table", "games")
    #: The rolls a row may have, and what one is called in an error.
    allowed_rolls, roll_name = OPENING_ROLLS, "an opening roll"

    seed: int | None = None
    policy: str = DEFAULT_POLICY
    rolls: tuple | None = None
    top: int | None = None
    within: float = DEFAULT_WITHIN
    max_plays: int = DEFAULT_MAX_PLAYS
    ply: int = 0
    vr: bool | None = None
    quasi_random: bool = True
    prune_se: float | None = None
    min_games: int | None = None

    def __post_init__(self):
        put = object.__setattr__         # (frozen: normalised values set once, here)
        put(self, "rolls", parse_rolls(self.rolls, self.allowed_rolls, self.roll_name))
        row = self.row(self.seed)        # the rows' checks, with their errors
        for name in ("seed", "vr", "quasi_random", "top", "max_plays", "min_games"):
            put(self, name, getattr(row, name))

    def row(self, seed) -> PlaysSettings:
        """The settings of a row's rollout of candidate plays, with its ``seed``: the
        candidates ``fastbg moves --rollout`` takes, at least the two best plays
        (:data:`~fastbg.rollouts.candidates.MIN_PLAYS`) where the window holds one (3-1,
        4-2 and 6-1 of the openings), so that each row says how sure its best play is."""
        return PlaysSettings(seed=seed, policy=self.policy, top=self.top, ply=self.ply,
                             within=self.within, max_plays=self.max_plays, vr=self.vr,
                             quasi_random=self.quasi_random, prune_se=self.prune_se,
                             min_games=self.min_games)

    def check_games(self, games: int) -> None:
        """The check that needs the games too: ``min_games`` at most ``games``."""
        self.row(None).check_games(games)

    def resolve(self):
        """The settings a table records: ``seed`` an int (fresh entropy if it was None) and
        ``vr`` True or False."""
        return self.replace(seed=draw_seed(self.seed), vr=resolve_vr(self.vr, self.policy))


@dataclass(frozen=True, kw_only=True)
class RepliesSettings(OpeningsSettings):
    """The settings of the replies table (:func:`replies_table`): as
    :class:`OpeningsSettings`, its ``rolls`` the 21 replies (doubles included); the opening
    play is the table's argument, recorded beside the settings."""

    run_arguments = ("position", "table", "games", "opening", "opening_position")
    allowed_rolls, roll_name = REPLY_ROLLS, "a roll"


def _candidate_rows(position, rolls, key, games, st: OpeningsSettings, runner: Runner,
                    run_args: dict, stored: StoredTable):
    """The rows of an openings or replies table: one candidate-play rollout per roll
    (``run_args``: its ``workers`` and ``dask``, :func:`~fastbg.research.table.table_cluster`)."""

    def play_row(j, dice, store_args, on_interrupt):
        res = rollout_plays(position, dice, games, settings=st.row(derived_seed(st.seed, key, *dice)),
                            runner=row_runner(runner, run_args, store_args, on_interrupt))
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

    on_row = runner.on_row
    return run_rows(rolls, play_row, stored,
                    on_row=None if on_row is None else lambda label, j, n: on_row(
                        _roll_text(rolls[j]), j, n), on_interrupt=runner.on_interrupt)


def _settings(name, description, games, st: OpeningsSettings, engine) -> dict:
    """The record of an openings or replies table (:func:`~fastbg.rollouts.settings.
    rollout_settings` of its resolved settings)."""
    return rollout_settings(
        policy=st.policy, seed=st.seed, games=games, block_size=PLAYS_BLOCK_SIZE, vr=st.vr,
        first_roll="rolled", engine=engine,
        dice_method="quasi-random (first two rolls stratified), a stream per game"
        if st.quasi_random else "pseudo-random, a stream per game",
        table=name, description=description, row_seeds="derived_seed(seed, key, d1, d2)",
        candidates={"top": st.top, "within": st.within, "max_plays": st.max_plays,
                    "ply": st.ply},
        prune=None if st.prune_se is None else {"prune_se": st.prune_se,
                                                "min_games": st.min_games})


def openings_table(games: int = 1296, *, settings: OpeningsSettings | None = None,
                   runner: Runner | None = None, **overrides) -> TableResult:
    """The opening rolls' candidate plays, rolled out, and the equity of winning the opening roll.

    Parameters
    ----------
    games : int
        Games per candidate play of each roll.
    settings : OpeningsSettings, optional
        Everything the numbers depend on besides ``games`` (default: its defaults).
    runner : Runner, optional
        Where and how the rows play (:class:`fastbg.rollouts.runner.Runner`: engine, threads,
        Dask, store, progress; default: its defaults). A table takes no ``on_block`` nor
        ``table_run``.
    **overrides
        Any field of the settings or of the runner, by name (below). An unknown name is a
        TypeError.

    Other Parameters
    ----------------
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
        table (the same settings; ValueError otherwise). The table's request is
        ``position``, ``table``, ``games`` and the resolved settings'
        :meth:`~fastbg.rollouts.settings.SettingsBase.as_dict`, so :func:`fastbg.resume`
        needs only the store and the run's id.
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
    TypeError
        For a keyword that is no setting and no field of the runner.

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
    settings, runner = configure(OpeningsSettings, settings, runner, overrides, "openings_table",
                                 takes_on_row=True)
    return _table("openings", "openings", "start", "the opening rolls", _OPENINGS_KEY, games,
                  settings, runner, extra_request={}, summary=_openings_summary)


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
    return n_blocks(games, plays_block_size(policy))


def _table(name, label, position, description, key, games, settings: OpeningsSettings,
           runner: Runner, extra_request, summary):
    """A table of candidate-play rollouts, one row per roll of the settings' ``rolls`` from
    ``position``; ``label`` names it in the store's list of runs."""
    check_table_runner(runner, f"{name}_table")
    games = check_games(games)
    settings.check_games(games)
    st = settings.resolve()
    request = dict(position=label, table=name, games=games, **extra_request, **st.as_dict())
    record = _settings(name, description, games, st, runner.engine)
    # the cluster before the store: a scheduler that does not answer leaves the store untouched
    with table_cluster(runner.dask, runner.workers, row_blocks(games, st.policy)) as (cl, run_args):
        stored = StoredTable(runner.store, runner.run_id, name, request, record)
        with stored.aborted_on_error():
            t0 = time.perf_counter()   # (a local cluster's start-up is not counted)
            rows, interrupted, stored_games = _candidate_rows(
                position, st.rolls, key, games, st, runner, run_args, stored)
            seconds = time.perf_counter() - t0
    result = TableResult(table=name, title=f"{name}: {description}", rows=rows,
                         summary=summary(rows, st.rolls), games=games, seed=st.seed,
                         settings=record, seconds=seconds,
                         interrupted=interrupted, run_id=stored.run_id,
                         stored_games=stored_games, dask=None if cl is None else cl.address,
                         planned_rows=len(st.rolls))
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


def replies_table(opening, games: int = 1296, *, settings: RepliesSettings | None = None,
                  runner: Runner | None = None, **overrides) -> TableResult:
    """The 21 replies to an opening play, each with its candidate plays rolled out.

    Parameters
    ----------
    opening : str
        The opening play (:func:`parse_opening`): ``"31"`` (its best play at 0 ply),
        ``"31 8/5 6/5"`` or ``"8/5 6/5"``.
    games : int
        Games per candidate play of each reply.
    settings : RepliesSettings, optional
        As :func:`openings_table`'s; ``rolls`` are replies (doubles included).
    runner : Runner, optional
        As :func:`openings_table`'s.
    **overrides
        Any field of the settings or of the runner, by name, as :func:`openings_table`
        takes them; reply ``(d1, d2)`` is rolled out with the seed
        ``derived_seed(seed, 0x5245, d1, d2)``.

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
    TypeError
        For a keyword that is no setting and no field of the runner.

    Notes
    -----
    **Reproducibility.** As :func:`openings_table`. The request stored records the opening
    (``opening``, ``opening_position``) beside the settings.
    """
    settings, runner = configure(RepliesSettings, settings, runner, overrides, "replies_table",
                                 takes_on_row=True)
    dice, move = parse_opening(opening, engine=runner.engine)
    after = find_play("start", dice, move, engine=runner.engine)
    position = Position(np.ascontiguousarray(after.board[::-1]))
    opening_text = f"{_roll_text(dice)} {move}"

    def summary(rows, rolls_):
        return {"opening": opening_text, **_replies_summary(rows, rolls_)}

    return _table("replies", f"replies {opening_text}", position,
                  f"the replies to {opening_text}", _REPLIES_KEY, games, settings, runner,
                  extra_request={"opening": opening_text, "opening_position":
                                 position.to_position_id()},
                  summary=summary)
