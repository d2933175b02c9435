"""Gammon and backgammon rates by game phase, from self-play.

Games are played from the starting position with the opening roll, both sides by the same
policy, ordinary dice. Every position a game passes through (the player on roll about to
play its roll) is put in one phase (:data:`PHASES`), and counted with how that game ended for
the player on roll. A phase's rate of, say, gammons won is then the share of its positions,
over all games, whose player on roll went on to win a gammon: what the side on roll can
expect from a position of that phase reached in play. The positions of one game are not
independent, so the standard errors treat each game as a cluster (the ratio estimator's
linearised variance: ``G / (G - 1) * sum_g (y_g - r n_g)^2 / N^2`` over the ``G`` games that
reach the phase, ``n_g`` positions and ``y_g`` events in game ``g``, ``N`` positions in all).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine import get_engine
from ..game.outcomes import PROBABILITY_KEYS
from ..spec.board import START_BOARD
from ..spec.dice import opening_roll, roll_index
from ..rollouts.blocks import BlockRecipe, abandoned, check_games, check_policy, n_blocks
from ..rollouts.runner import Runner, RunPlan, configure, play_stored
from ..rollouts.settings import (DEFAULT_POLICY, SettingsBase, check_seed, draw_seed,
                                 rollout_settings)
from .table import TableResult, check_stored_table, check_table_runner

__all__ = ["PHASES", "phase_of", "selfplay_game", "gammons_table", "GAMMONS_BLOCK_SIZE", "row_blocks",
           "GammonsSettings"]

#: The phases, in order, and what puts a position in each (the player on roll's view).
PHASES = {
    "opening": "the game's first position: the side that won the opening roll, to play it",
    "contact": "later positions with contact, the player on roll with a checker outside its "
               "home board or on the bar (the middle game)",
    "bearoff_contact": "contact, every checker of the player on roll in its home board "
                       "(bearing in or off against an anchor or a hit checker)",
    "race": "no contact, a checker of the player on roll outside its home board",
    "bearoff": "no contact, every checker of the player on roll in its home board",
}
_PHASE_INDEX = {k: i for i, k in enumerate(PHASES)}

#: Games per block of the gammons table (part of its reproducibility contract).
GAMMONS_BLOCK_SIZE = 500

#: Per outcome class of the player on roll (win single/gammon/backgammon, lose ...), the
#: quantities counted: the five probabilities' indicators, the points, a gammon or a
#: backgammon of either side.
_QUANTITIES = (*PROBABILITY_KEYS, "points", "gammon", "backgammon")
_Q = np.array([
    # win  wg  wbg  lg  lbg  pts  gammon  bg
    [1, 0, 0, 0, 0, 1, 0, 0],
    [1, 1, 0, 0, 0, 2, 1, 0],
    [1, 1, 1, 0, 0, 3, 1, 1],
    [0, 0, 0, 0, 0, -1, 0, 0],
    [0, 0, 0, 1, 0, -2, 1, 0],
    [0, 0, 0, 1, 1, -3, 1, 1],
], dtype=np.int64)
_NQ = len(_QUANTITIES)
#: Columns of a block's counts per phase: positions N, sum of n^2, games G, then per
#: quantity its sum Y, sum of y^2 and sum of n*y (all integers: blocks merge exactly).
_COLUMNS = 3 + 3 * _NQ


def phase_of(board, half_move: int) -> int:
    """The phase (index into :data:`PHASES`) of a position, the player on roll in row 0.

    Parameters
    ----------
    board : numpy.ndarray of int8, shape (2, 25)
    half_move : int
        Plays made before this position in the game (0: the first play).
    """
    if half_move == 0:
        return 0
    b = board
    home = not b[0, 6:].any()
    my_back = _back(b[0])
    opp_back = _back(b[1])
    if my_back + opp_back < 25:         # no contact (DESIGN section 3's race)
        return 4 if home else 3
    return 2 if home else 1


def _back(row) -> int:
    nz = np.flatnonzero(row)
    return int(nz[-1]) + 1 if nz.size else 0


def selfplay_game(engine, policy, bitgen) -> tuple[np.ndarray, int, bool]:
    """One game from the start with the opening roll, as the engines' game loop plays it.

    Parameters
    ----------
    engine : namespace
        :func:`fastbg.engine.get_engine`'s.
    policy : object
        ``engine.make_policy(name)``.
    bitgen : numpy.random.BitGenerator
        Draws the dice (the opening roll, then one roll per turn) and the policy's choices,
        in the order of the engines' ``play_game(..., opening=True)``, so the same bit
        generator plays the same game.

    Returns
    -------
    visits : numpy.ndarray of int64, shape (5, 2)
        Positions of each phase with the opening roll's winner (column 0) or the other side
        (column 1) on roll.
    result : int
        The outcome class (0-5) for the opening roll's winner.
    root_first : bool
        Whether the opening roll's winner is the side in row 0 of the starting position.
    """
    visits = np.zeros((len(PHASES), 2), dtype=np.int64)
    a, b = opening_roll(bitgen)
    root_first = a > b
    d1, d2 = (a, b) if root_first else (b, a)
    board = np.array(START_BOARD, dtype=np.int8)    # symmetric: either side's view
    side, half = 0, 0
    while True:
        visits[phase_of(board, half), side] += 1
        plays = engine.legal_plays(board, d1, d2)
        if len(plays) == 0:
            after = board
        elif len(plays) == 1:
            after = plays[0]
        else:
            after = plays[policy.choose(board, plays, bitgen)]
        if not after[0].any():
            won = engine.board.outcome(after) - 1
            return visits, (won if side == 0 else won + 3), root_first
        board = np.ascontiguousarray(after[::-1])
        side ^= 1
        half += 1
        r = roll_index(bitgen)
        d1, d2 = r // 6 + 1, r % 6 + 1


def _block_counts(visits_results) -> np.ndarray:
    """A block's integer sums per phase (:data:`_COLUMNS`) from its games' visits and results."""
    out = np.zeros((len(PHASES), _COLUMNS), dtype=np.int64)
    for visits, c0 in visits_results:
        q0, q1 = _Q[c0], _Q[(c0 + 3) % 6]        # the other side's view: the flipped class
        n = visits.sum(axis=1)
        y = np.outer(visits[:, 0], q0) + np.outer(visits[:, 1], q1)
        out[:, 0] += n
        out[:, 1] += n * n
        out[:, 2] += n > 0
        out[:, 3:3 + _NQ] += y
        out[:, 3 + _NQ:3 + 2 * _NQ] += y * y
        out[:, 3 + 2 * _NQ:] += n[:, None] * y
    return out


def phase_statistics(counts, games: int) -> list[dict]:
    """The rows of the gammons table from its summed block counts.

    Parameters
    ----------
    counts : array_like of int, shape (5, 27)
        Summed block counts (:data:`_COLUMNS` per phase).
    games : int
        Games played.

    Returns
    -------
    list of dict
        Per phase: ``phase``, ``meaning``, ``positions``, ``games`` (reaching it),
        ``share_of_games``, the five probabilities, ``equity`` (points per game for the player
        on roll, cubeless), ``gammon`` and ``backgammon`` (of either side) and ``stderr``
        (cluster-robust, same keys); rates are None for a phase no game reached.
    """
    c = np.asarray(counts, dtype=np.int64)
    rows = []
    for i, (key, meaning) in enumerate(PHASES.items()):
        N, NN, G = (int(v) for v in c[i, :3])
        row = {"phase": key, "meaning": meaning, "positions": N, "games": G,
               "share_of_games": G / games if games else None}
        se = {}
        for j, name in enumerate(_QUANTITIES):
            Y, YY, NY = (int(c[i, 3 + k * _NQ + j]) for k in range(3))
            label = "equity" if name == "points" else name
            if not N:
                row[label] = se[label] = None
                continue
            r = Y / N
            row[label] = r
            if G > 1:
                ss = YY - 2 * r * NY + r * r * NN    # sum_g (y_g - r n_g)^2
                se[label] = math.sqrt(max(0.0, ss) * G / (G - 1)) / N
            else:
                se[label] = None
        row["stderr"] = se
        rows.append(row)
    return rows


def _gammons_block(*, engine: str, policy: str):
    """The block function of the gammons table: a :class:`~fastbg.rollouts.blocks.BlockRecipe`'s
    factory, built where the blocks are played (the calling process's threads, or each
    worker of a Dask cluster)."""
    eng = get_engine(engine)

    def block(k, n, bitgen):
        pol = eng.make_policy(policy)
        played = []
        for _ in range(n):
            if abandoned():            # a second Ctrl-C: the partial block is discarded
                break
            visits, c0, _ = selfplay_game(eng, pol, bitgen)
            played.append((visits, c0))
        return _block_counts(played)
    return block


def row_blocks(games: int, policy: str | None = None) -> int:
    """Blocks of the gammons table (one row): the most worker processes its local Dask
    cluster gets.

    Parameters
    ----------
    games : int
        Games of the table.
    policy : str, optional
        Not used: the table's blocks are :data:`GAMMONS_BLOCK_SIZE` games for any policy
        (the argument keeps the other tables' ``row_blocks`` signature).

    Returns
    -------
    int
    """
    return n_blocks(games, GAMMONS_BLOCK_SIZE)


@dataclass(frozen=True, kw_only=True)
class GammonsSettings(SettingsBase):
    """The settings of the gammons table (:func:`gammons_table`): its seed and policy (the
    games are its argument). Its :meth:`~fastbg.rollouts.settings.SettingsBase.as_dict` is
    what the results store records as the table's request beside ``position``
    (``"gammons"``), ``table`` and ``games``.

    Attributes
    ----------
    seed : int or None
        Root seed; None: fresh entropy drawn at the start (and reported).
    policy : str
        Checker play of both sides.
    """

    run_arguments = ("position", "table", "games")

    seed: int | None = None
    policy: str = DEFAULT_POLICY

    def __post_init__(self):
        check_policy(self.policy)
        object.__setattr__(self, "seed", check_seed(self.seed))


def gammons_table(games: int = 10_000, *, settings: GammonsSettings | None = None,
                  runner: Runner | None = None, **overrides) -> TableResult:
    """Gammon and backgammon rates by game phase, from ``games`` games of self-play.

    Parameters
    ----------
    games : int
        Games of self-play, from the starting position with the opening roll.
    settings : GammonsSettings, optional
        Its seed and policy (default: their defaults).
    runner : Runner, optional
        Where and how the games play, as :func:`fastbg.research.openings_table`'s (the
        table has no rows: ``on_row`` is not called).
    **overrides
        Any field of the settings or of the runner, by name (below). An unknown name is a
        TypeError.

    Other Parameters
    ----------------
    seed, workers, policy, engine
        As :func:`fastbg.rollout`: both sides play by ``policy``; games run in blocks of
        :data:`GAMMONS_BLOCK_SIZE`, block ``k`` drawing everything from
        ``PCG64DXSM(SeedSequence(seed, spawn_key=(k,)))`` (the dice of the engines' game loop:
        :func:`selfplay_game`). The positions are classified in Python between the engine's
        moves, so threads add little; the numbers do not depend on ``workers``.
    progress, on_interrupt, store, run_id
        As :func:`fastbg.research.openings_table`; the table's blocks are stored in its own
        run (it has no rows).
    dask : bool or str or distributed.Client, optional
        Play the blocks on a Dask cluster, as :func:`fastbg.rollout` (``True``: a local
        cluster of ``workers`` processes); the same numbers. The self-play loop is Python
        between the engine's moves, so worker processes, each with its own interpreter,
        gain what threads cannot.

    Returns
    -------
    TableResult
        ``rows``: one per phase (:data:`PHASES`), as :func:`phase_statistics`; ``summary``:
        ``games``, ``gammon`` and ``backgammon`` (share of games ending in one, either side,
        with ``stderr``), ``half_moves`` (mean plays per game).

    Raises
    ------
    ValueError
        Bad games, seed, workers, policy or engine, or a stored run that is not a gammons
        table or has other settings.
    TypeError
        For a keyword that is no setting and no field of the runner.

    Notes
    -----
    No variance reduction: the rates are of positions reached in play, not of a fixed
    position, so there is no root whose luck could be taken off. **Reproducibility.** The
    games depend only on the seed, the policy and fastbg's version (threads or a Dask
    cluster alike).
    """
    settings, runner = configure(GammonsSettings, settings, runner, overrides, "gammons_table",
                                 takes_on_row=True)
    check_table_runner(runner, "gammons_table")
    games = check_games(games)
    st = settings.replace(seed=draw_seed(settings.seed))
    entropy, policy, engine = st.seed, st.policy, runner.engine
    request = dict(position="gammons", table="gammons", games=games, **st.as_dict())
    record = rollout_settings(policy=policy, seed=entropy, games=games,
                                block_size=GAMMONS_BLOCK_SIZE, vr=False, first_roll="opening",
                                engine=engine, table="gammons", phases=list(PHASES))
    if runner.run_id is not None:      # another kind of run, or another table: say which
        check_stored_table(runner.store, runner.run_id, "gammons")
    # the table is a run of its own, without rows: its blocks are played and stored as any
    # rollout's (the cluster before the store; blocks of another shape are not checked, as
    # `fastbg runs` does not know a table's)
    plan = RunPlan(kind="table", request=request, settings=record,
                   block_size=GAMMONS_BLOCK_SIZE, counts_shape=(len(PHASES), _COLUMNS),
                   stored_shape=None)
    played = play_stored(plan, runner, START_BOARD, games, entropy,
                         BlockRecipe(_gammons_block, dict(engine=engine, policy=policy)))
    run, seconds = played.run, played.seconds
    rows = phase_statistics(run.counts, run.games)
    first = rows[0]
    summary = {"games": run.games}
    if run.games:
        summary.update(gammon=first["gammon"], backgammon=first["backgammon"],
                       stderr={"gammon": first["stderr"]["gammon"],
                               "backgammon": first["stderr"]["backgammon"]},
                       half_moves=sum(r["positions"] for r in rows) / run.games)
    stored = played.stored
    result = TableResult(table="gammons", title="gammons: gammon and backgammon rates by game "
                         "phase, from self-play", rows=rows, summary=summary, games=games,
                         seed=entropy, settings=record, seconds=seconds,
                         interrupted=run.interrupted,
                         run_id=None if stored is None else stored.run_id,
                         stored_games=played.stored_games, dask=played.address)
    if stored is not None and not stored.finish(result.interrupted, result.to_dict()):
        result.run_id = None           # a new table stopped before its first block: removed
    return result
