"""Races: rollouts against the Keith count and Trice's rule, over a grid of pip counts.

For each cell of a grid, the pip count of the player on roll and its lead in percent, a few
random race positions with exactly those pip counts (:func:`random_race_position`) are rolled
out (cubeless, variance reduction, exact in the two-sided bear-off database); the money cube
action of each follows from its probabilities by Janowski's model with GNU Backgammon's race
cube efficiency (:func:`fastbg.money_cube_decision`), and is compared with the predictions of
two over-the-board formulas.

Sources
-------
Keith count: Tom Keith, "Cube Handling In Noncontact Positions" (June 2004,
https://bkgm.com/articles/CubeHandlingInRaces/), summarised at http://bgonline.org/keith.html
and in the Backgammon Galore glossary (https://www.bkgm.com/gloss/lookup.cgi?keith+count):
each side's pip count plus 2 for each checker more than 1 on its 1-point, 1 for each checker
more than 1 on its 2-point, 1 for each checker more than 3 on its 3-point, and 1 for each
empty space on its 4-, 5- and 6-points; the count of the player on roll is increased by
one-seventh (rounded down). Double if that count exceeds the opponent's by no more than 4
(redouble: 3); take if it exceeds the opponent's by at least 2.

Trice's rule (Walter Trice's point of last take), as Phil Simborg gives it ("The Best Racing
Formula", backgammon.org forum, http://www.backgammon.org/forum/viewtopic.php?p=94) and
bgaddict.com's summary (http://bgaddict.com/: "-5, /7 round down; /10, +1, round up"): the
leader's pip count ``L``; above 62, the trailer's point of last take is ``L + ceil(L / 10) +
1``; at 62 or below, ``L + floor((L - 5) / 7)`` (both give 70 at 62). The leader doubles when
the trailer's count is within 3 pips of that point (redoubles within 2;
http://boardgamestrategy.blogspot.com/2011/03/, "Simple Doubling guideline"). Both rules are
for money play with a centred cube; races with gammon chances are outside them.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..cube import money_cube_decision
from ..game.outcomes import PROBABILITY_KEYS
from ..game.position import Position
from ..rollouts.blocks import block_size_for, check_games, check_policy, n_blocks
from ..rollouts.cubeless import rollout
from ..rollouts.runner import Runner, configure
from ..rollouts.settings import (DEFAULT_POLICY, RolloutSettings, SettingsBase, check_flag,
                                 check_seed, draw_seed, resolve_vr, rollout_settings)
from .table import (StoredTable, TableResult, check_table_runner, derived_seed, row_runner,
                    run_rows, table_cluster)

__all__ = ["keith_count", "keith_decision", "trice_point_of_last_take", "trice_decision",
           "random_race_position", "race_table", "DEFAULT_RACE_PIPS", "DEFAULT_RACE_LEADS",
           "RACE_PIPS_RANGE", "MAX_RACE_POSITIONS", "check_positions", "row_blocks", "RaceSettings"]

#: The grid of :func:`race_table` unless told: pip counts of the player on roll ...
DEFAULT_RACE_PIPS = (40, 60, 80, 100, 120)
#: ... and its leads, in percent of its pip count (the opponent's count is
#: ``pips + round(pips * lead / 100)``).
DEFAULT_RACE_LEADS = (0, 4, 8, 12, 16, 20)
#: The pip counts a side of a random race position may have.
RACE_PIPS_RANGE = (20, 160)
#: The highest point a checker of a random race position may be on (each side's own
#: numbering): 12 for both sides, so that no checker of one has passed a checker of the
#: other (DESIGN section 3: a race is ``my_back + opp_back < 25``).
RACE_MAX_POINT = 12
#: Pips per checker of a smooth home board, below which a random race position's side has
#: borne off checkers: ``ceil(pips / 3.5)`` checkers left, at most 15.
RACE_PIPS_PER_CHECKER = 3.5
#: The most positions one race table may hold (its cells times ``positions``): 100,000.
#: Each is a row of its own (a rollout; a run of the store with ``store=``), kept in memory
#: and in the table's result (about 1 KB each); at the default 1,296 games a position that
#: is about a day on two cores, and 0.04 s a row at the least. As with
#: :data:`fastbg.rollouts.blocks.MAX_GAMES`, a count beyond it is a typo, not a plan.
MAX_RACE_POSITIONS = 100_000
#: First word of the seed keys of the race table's positions and rollouts: "RA".
_RACE_KEY = 0x5241


def check_positions(positions, cells: int = 1) -> int:
    """``positions`` (random race positions per cell) as an int, checked: a whole number
    of at least 1, and with ``cells`` cells at most :data:`MAX_RACE_POSITIONS` in all.

    Raises
    ------
    ValueError
        Naming the problem: not a whole number, below 1, too many positions.
    """
    if isinstance(positions, bool) or not isinstance(positions, (int, np.integer)) or positions < 1:
        raise ValueError(f"positions must be a positive number of positions per cell, got "
                         f"{positions!r}")
    if positions * cells > MAX_RACE_POSITIONS:
        grid = f" a cell, {positions * cells:,} in {cells:,} cells" if cells > 1 else ""
        raise ValueError(f"positions is {positions:,}{grid}: a race table holds at most "
                         f"{MAX_RACE_POSITIONS:,} positions, each a rollout of its own (about "
                         "a day on two cores at 1,296 games each); ask for fewer, or split the "
                         "grid into several tables")
    return int(positions)


def _row(board_row) -> np.ndarray:
    return np.asarray(board_row, dtype=np.int64)


def keith_count(position) -> tuple[int, int]:
    """Both sides' Keith counts (before the one-seventh increase of the player on roll).

    Parameters
    ----------
    position : Position or anything :meth:`fastbg.Position.parse` reads
        A race (no contact is not checked: the count is defined for any position).

    Returns
    -------
    (player, opponent) : tuple of int
        Each side's pip count plus 2 for each checker more than 1 on its 1-point, 1 for each
        checker more than 1 on its 2-point, 1 for each checker more than 3 on its 3-point and
        1 for each of its 4-, 5- and 6-points that is empty (Tom Keith, 2004; sources in the
        module's docstring).
    """
    pos = Position.parse(position)
    pips = pos.pip_counts
    out = []
    for side in (0, 1):
        r = _row(pos.board[side])
        extra = (2 * max(0, int(r[0]) - 1) + max(0, int(r[1]) - 1) + max(0, int(r[2]) - 3)
                 + int(np.sum(r[3:6] == 0)))
        out.append(int(pips[side]) + extra)
    return out[0], out[1]


def keith_decision(position) -> dict:
    """The Keith count's money cube action for the player on roll, centred cube.

    Returns
    -------
    dict
        ``counts`` (both Keith counts), ``roller_count`` (the player's increased by one
        seventh, rounded down), ``margin`` (``roller_count`` minus the opponent's count),
        ``double`` (margin at most 4), ``take`` (margin at least 2) and ``action``
        ("No double, take", "Double, take" or "Double, pass"; "No double, pass" when the
        margin is below 2 and above 4 cannot happen).
    """
    k0, k1 = keith_count(position)
    rc = k0 + k0 // 7
    margin = rc - k1
    double, take = margin <= 4, margin >= 2
    return {"counts": [k0, k1], "roller_count": rc, "margin": margin, "double": double,
            "take": take, "action": _action(double, take)}


def trice_point_of_last_take(leader: int) -> int:
    """Trice's point of last take: the largest pip count of the trailer that takes.

    Parameters
    ----------
    leader : int
        The leader's (doubler's) pip count, at least 1.

    Returns
    -------
    int
        ``leader + ceil(leader / 10) + 1`` above 62, ``leader + floor((leader - 5) / 7)`` at
        62 or below (sources in the module's docstring).
    """
    if isinstance(leader, bool) or not isinstance(leader, (int, np.integer)) or leader < 1:
        raise ValueError(f"a pip count is a positive whole number, got {leader!r}")
    leader = int(leader)
    if leader > 62:
        return leader + -(-leader // 10) + 1
    return leader + (leader - 5) // 7


def trice_decision(position) -> dict:
    """Trice's rule's money cube action for the player on roll, centred cube.

    Returns
    -------
    dict
        ``point_of_last_take`` (:func:`trice_point_of_last_take` of the player's pip
        count), ``margin`` (the opponent's pip count minus it), ``double`` (the opponent's
        count at least 3 below the point: margin >= -3), ``take`` (margin <= 0) and
        ``action``.
    """
    pos = Position.parse(position)
    mine, theirs = (int(v) for v in pos.pip_counts)
    plt = trice_point_of_last_take(mine)
    margin = theirs - plt
    double, take = margin >= -3, margin <= 0
    return {"point_of_last_take": plt, "margin": margin, "double": double, "take": take,
            "action": _action(double, take)}


def _action(double: bool, take: bool) -> str:
    return f"{'Double' if double else 'No double'}, {'take' if take else 'pass'}"


def _tilted_distribution(mean: float, top: int) -> np.ndarray:
    """``p(i) ∝ exp(theta i)`` on points ``1..top`` with mean ``mean`` (``theta`` by
    bisection): the distribution of largest entropy with that mean."""
    points = np.arange(1, top + 1, dtype=np.float64)

    def dist(theta):
        w = np.exp(theta * (points - points.mean()))
        return w / w.sum()

    lo, hi = -30.0, 30.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if dist(mid) @ points < mean:
            lo = mid
        else:
            hi = mid
    return dist((lo + hi) / 2)


def _random_side(pips: int, rng: np.random.Generator) -> np.ndarray:
    """One side of a random race position: counts on its points 1..24 (and bar 0)."""
    n = min(15, math.ceil(pips / RACE_PIPS_PER_CHECKER))
    cdf = np.cumsum(_tilted_distribution(pips / n, RACE_MAX_POINT))
    for _ in range(10_000):
        # inverse-CDF draws from Generator.random, whose doubles numpy keeps stable
        u = rng.random((256, n)) * cdf[-1]
        draws = np.minimum(np.searchsorted(cdf, u, side="right"), RACE_MAX_POINT - 1) + 1
        hit = np.flatnonzero(draws.sum(axis=1) == pips)
        if hit.size:
            row = np.zeros(25, dtype=np.int8)
            np.add.at(row, draws[hit[0]] - 1, 1)
            return row
    raise RuntimeError(f"no race position with {pips} pips found")  # pragma: no cover


def random_race_position(pips: int, opponent_pips: int, rng) -> Position:
    """A random race position with the given pip counts, the player on roll first.

    Parameters
    ----------
    pips, opponent_pips : int
        Pip counts of the player on roll and of the opponent, each in
        :data:`RACE_PIPS_RANGE` (20 to 160).
    rng : numpy.random.Generator or int
        The random source (an int seeds ``Generator(PCG64DXSM(seed))``).

    Returns
    -------
    Position
        No contact: each side's checkers on its own points 1 to 12. A side has 15 checkers
        left, or ``ceil(pips / 3.5)`` when its count is below 52.5 (the rest borne off, as
        after bearing off from a smooth home board).

    Raises
    ------
    ValueError
        A pip count that is not a whole number in :data:`RACE_PIPS_RANGE`.

    Notes
    -----
    Each side's checkers are drawn independently from the distribution of largest entropy
    on its points 1..12 with the required mean pips per checker, ``p(i) ∝ exp(theta i)``,
    and the draw is kept when the pips add up exactly (rejection sampling): the least
    structured positions with those counts, so that the formulas meet wastage (stacks on
    low points, gaps) in the proportions chance gives them, not only smooth boards. A
    documented choice, not the distribution of races in real games (which have, for
    instance, fewer gaps in long races).

    **Reproducibility.** The same ``rng`` state gives the same position.
    """
    for v, who in ((pips, "pips"), (opponent_pips, "opponent_pips")):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) \
                or not RACE_PIPS_RANGE[0] <= v <= RACE_PIPS_RANGE[1]:
            raise ValueError(f"{who} must be a whole number of pips from {RACE_PIPS_RANGE[0]} "
                             f"to {RACE_PIPS_RANGE[1]} (a race with every checker on its "
                             f"side's points 1-{RACE_MAX_POINT}), got {v!r}")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.Generator(np.random.PCG64DXSM(int(rng)))
    board = np.stack([_random_side(int(pips), rng), _random_side(int(opponent_pips), rng)])
    return Position(board)


def _pips(n: int) -> str:
    """``"1 pip"``, ``"40 pips"``."""
    return f"{n} pip" + ("" if n == 1 else "s")


def _grid(pips, leads) -> list[tuple[int, int, float]]:
    """The cells ``(pips, opponent_pips, lead)`` of a grid, checked."""
    pips = list(pips)
    leads = list(leads)
    if not pips or not leads:
        raise ValueError("the race grid needs at least one pip count and one lead")
    cells = []
    for p in pips:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise ValueError(f"a pip count is a whole number, got {p!r}")
        for lead in leads:
            if isinstance(lead, bool) or not isinstance(lead, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(lead):
                raise ValueError(f"a lead is a number of percent, got {lead!r}")
            q = int(p) + math.floor(int(p) * float(lead) / 100 + 0.5)
            for v in (int(p), q):
                if not RACE_PIPS_RANGE[0] <= v <= RACE_PIPS_RANGE[1]:
                    raise ValueError(f"the cell of {_pips(p)} and a lead of {lead:g}% has a "
                                     f"side with {_pips(v)}: race positions have "
                                     f"{RACE_PIPS_RANGE[0]} to {RACE_PIPS_RANGE[1]}")
            cells.append((int(p), q, float(lead)))
    if len(set(cells)) != len(cells):
        raise ValueError("the race grid has a cell twice (a pip count or a lead given twice)")
    return cells


def _errors(rule: dict, dec) -> dict:
    """A rule's double and take decisions against the rollout's, and what they cost in
    equity (per unit cube): the doubler's ``best - chosen``, the taker's ``chosen - best``
    (both >= 0; values to the doubler, Janowski's ``nd``, ``dt`` and ``dp``)."""
    double_value = min(dec.dt, dec.dp)
    best_double = not dec.nd > double_value
    best_take = dec.dt < dec.dp
    chosen = double_value if rule["double"] else dec.nd
    cost_double = max(dec.nd, double_value) - chosen
    cost_take = (dec.dt if rule["take"] else dec.dp) - min(dec.dt, dec.dp)
    return {"double_wrong": rule["double"] != best_double, "take_wrong": rule["take"] != best_take,
            "cost_double": float(cost_double), "cost_take": float(cost_take)}


def row_blocks(games: int, policy: str) -> int:
    """Blocks of one cell of the race table: the most worker processes its local Dask
    cluster gets.

    Parameters
    ----------
    games : int
        Games per race position.
    policy : str
        The rollouts' policy (its block size).

    Returns
    -------
    int
    """
    return n_blocks(games, block_size_for(policy))


@dataclass(frozen=True, kw_only=True)
class RaceSettings(SettingsBase):
    """The settings of the race table (:func:`race_table`): everything its numbers depend on
    besides the games per position.

    Frozen and validated when made (ValueError naming the first bad setting); its
    :meth:`~fastbg.rollouts.settings.SettingsBase.as_dict` is what the results store records
    as the table's request beside ``position`` (``"race"``), ``table`` and ``games``.

    Attributes
    ----------
    seed : int or None
        Root seed; None: fresh entropy drawn at the start (and reported).
    policy : str
        Checker play of both sides.
    pips : tuple of int
        Pip counts of the player on roll (given as any sequence).
    leads : tuple of float
        Its leads in percent of its pip count.
    positions : int
        Random race positions per cell (:func:`check_positions`).
    vr, quasi_random, truncate_bearoff
        The rollout of each position, as :class:`~fastbg.rollouts.settings.RolloutSettings`.

    Examples
    --------
    >>> s = RaceSettings(pips=[40, 60], leads=[0, 10], positions=1)
    >>> RaceSettings(**s.as_dict()) == s
    True
    """

    run_arguments = ("position", "table", "games")

    seed: int | None = None
    policy: str = DEFAULT_POLICY
    pips: tuple = DEFAULT_RACE_PIPS
    leads: tuple = DEFAULT_RACE_LEADS
    positions: int = 3
    vr: bool | None = None
    quasi_random: bool = True
    truncate_bearoff: bool = True

    def __post_init__(self):
        put = object.__setattr__         # (frozen: normalised values set once, here)
        pips, leads = list(self.pips), list(self.leads)
        cells = _grid(pips, leads)
        put(self, "positions", check_positions(self.positions, len(cells)))
        put(self, "pips", tuple(int(p) for p in pips))
        put(self, "leads", tuple(float(v) for v in leads))
        check_policy(self.policy)
        if self.vr is not None:
            put(self, "vr", resolve_vr(self.vr, self.policy))
        put(self, "quasi_random", check_flag("quasi_random", self.quasi_random))
        put(self, "truncate_bearoff", check_flag("truncate_bearoff", self.truncate_bearoff))
        put(self, "seed", check_seed(self.seed))

    @property
    def cells(self) -> list[tuple[int, int, float]]:
        """The cells ``(pips, opponent_pips, lead)`` of the grid."""
        return _grid(self.pips, self.leads)

    def row(self, seed: int) -> RolloutSettings:
        """The settings of a position's rollout, with its ``seed``."""
        return RolloutSettings(seed=seed, policy=self.policy, vr=self.vr,
                               quasi_random=self.quasi_random,
                               truncate_bearoff=self.truncate_bearoff)

    def resolve(self) -> "RaceSettings":
        """The settings a table records: ``seed`` an int (fresh entropy if it was None) and
        ``vr`` True or False."""
        return self.replace(seed=draw_seed(self.seed), vr=resolve_vr(self.vr, self.policy))


def race_table(games: int = 1296, *, settings: RaceSettings | None = None,
               runner: Runner | None = None, **overrides) -> TableResult:
    """Cubeless win probabilities and cube actions over a grid of races, against two formulas.

    Parameters
    ----------
    games : int
        Games per position; each position's rollout has the seed
        ``derived_seed(seed, 0x5241, p, q, j, 1)``.
    settings : RaceSettings, optional
        Everything the numbers depend on besides ``games`` (default: its defaults).
    runner : Runner, optional
        Where and how the rows play, as :func:`fastbg.research.openings_table`'s.
    **overrides
        Any field of the settings or of the runner, by name (below). An unknown name is a
        TypeError.

    Other Parameters
    ----------------
    pips : sequence of int
        Pip counts of the player on roll (default 40, 60, 80, 100, 120).
    leads : sequence of float
        Its leads in percent of its pip count (default 0, 4, ..., 20): the opponent has
        ``pips + round(pips * lead / 100)`` pips (negative: the player trails).
    positions : int
        Random race positions per cell (:func:`random_race_position`; position ``j`` of the
        cell ``(p, q)`` from the seed ``derived_seed(seed, 0x5241, p, q, j, 0)``), at most
        :data:`MAX_RACE_POSITIONS` in all cells together. Each is drawn as its row starts
        (under the row's progress), not all at first.
    seed, workers, policy, engine, vr, quasi_random
        As :func:`fastbg.rollout` (variance reduction on with the nn policies).
    truncate_bearoff : bool, default True
        Score a game exactly once it reaches the two-sided bear-off database
        (:func:`fastbg.rollout`'s ``truncate_bearoff``).
    progress, on_row, on_interrupt, store, run_id, dask
        As :func:`fastbg.research.openings_table`; each position is a row (``on_row``'s
        label ``"100-108 #2"``), and with ``dask`` every position's rollout plays its blocks
        on the one cluster of the table.

    Returns
    -------
    TableResult
        ``rows``, one per position: ``pips``, ``opponent_pips``, ``lead`` (percent, as
        asked), ``index`` (in its cell), ``position_id``, ``rollout`` (the five
        probabilities, ``equity``, ``stderr`` of each, ``games``), ``cube`` (the rollout's
        money action by Janowski's model: ``action``, ``nd``, ``dt``, ``dp`` per unit cube,
        ``x``, ``double``, ``take``), ``keith`` (:func:`keith_decision`) and ``trice``
        (:func:`trice_decision`), each with its ``errors`` against the rollout's action
        (``double_wrong``, ``take_wrong``, ``cost_double``, ``cost_take`` in equity per
        unit cube), ``seed``, ``run_id``.
        ``summary``: ``positions``; ``cells``, per cell its positions' mean ``win`` (with
        the standard error of that mean), least and largest, the rollout's doubles and takes
        and each rule's wrong decisions; ``keith`` and ``trice``: ``double_errors``,
        ``take_errors`` (counts), ``error_rate`` (wrong decisions per decision) and
        ``mean_cost`` (equity per position, double and take together) over the table.

    Raises
    ------
    ValueError
        A bad grid (a side outside 20-160 pips, a cell twice), bad ``positions`` (more
        than :data:`MAX_RACE_POSITIONS` in all: :func:`check_positions`) or rollout
        options, or a stored run that is not a race table or has other settings.
    TypeError
        For a keyword that is no setting and no field of the runner.

    Notes
    -----
    The rollout's cube action is Janowski's, with GNU Backgammon's race cube efficiency at
    the player's pip count (:func:`fastbg.money_cube_decision`), from the rolled-out
    cubeless probabilities: not a cubeful rollout. Its standard errors are those of the
    probabilities (about 0.0003 in win at 1,296 games with variance reduction), so a
    decision within a few of them of its threshold is a close call either way.

    **Reproducibility.** As :func:`fastbg.research.openings_table`: positions, seeds and
    numbers depend only on the seed and the settings (threads or a Dask cluster alike).
    """
    settings, runner = configure(RaceSettings, settings, runner, overrides, "race_table",
                                 takes_on_row=True)
    check_table_runner(runner, "race_table")
    games = check_games(games)
    st = settings.resolve()
    cells = st.cells
    keys = [(p, q, lead, j) for p, q, lead in cells for j in range(st.positions)]
    request = dict(position="race", table="race", games=games, **st.as_dict())
    record = _race_settings(st, games, runner.engine)
    # the cluster before the store: a scheduler that does not answer leaves the store untouched
    with table_cluster(runner.dask, runner.workers, row_blocks(games, st.policy)) as (cl, run_args):
        stored = StoredTable(runner.store, runner.run_id, "race", request, record)
        with stored.aborted_on_error():
            t0 = time.perf_counter()   # (a local cluster's start-up is not counted)
            rows, interrupted, stored_games = run_rows(
                keys, _race_row(st, games, runner, run_args), stored,
                on_row=None if runner.on_row is None else
                lambda label, j, n: runner.on_row(f"{keys[j][0]}-{keys[j][1]} #{keys[j][3] + 1}",
                                                  j, n),
                on_interrupt=runner.on_interrupt)
            seconds = time.perf_counter() - t0
    result = TableResult(table="race", title="race: cubeless win probability and cube action "
                         "by pip count, against the Keith count and Trice's rule",
                         rows=rows, summary=_race_summary(rows, cells), games=games,
                         seed=st.seed, settings=record, seconds=seconds,
                         interrupted=interrupted, run_id=stored.run_id,
                         stored_games=stored_games, dask=None if cl is None else cl.address,
                         planned_rows=len(keys))
    stored.finish(result)
    return result


def _race_settings(st: RaceSettings, games: int, engine: str) -> dict:
    """The record of a race table (:func:`~fastbg.rollouts.settings.rollout_settings` of its
    resolved settings)."""
    return rollout_settings(
        policy=st.policy, seed=st.seed, games=games, block_size=block_size_for(st.policy),
        vr=st.vr, first_roll="rolled",
        engine=engine, dice_method="quasi-random (first two rolls stratified)"
        if st.quasi_random else "pseudo-random", truncate_bearoff=st.truncate_bearoff,
        table="race",
        positions="random_race_position(p, q, derived_seed(seed, 0x5241, p, q, j, 0))",
        row_seeds="derived_seed(seed, 0x5241, p, q, j, 1)",
        cube="Janowski, GNU Backgammon's race cube efficiency")


def _race_row(st: RaceSettings, games: int, runner: Runner, run_args: dict):
    """The ``play_row`` of :func:`~fastbg.research.table.run_rows` for the race table: a
    random position of the row's cell, rolled out, its cube action and the formulas'."""

    def play_row(j, key, store_args, on_interrupt):
        p, q, lead, i = key
        pos = random_race_position(p, q, np.random.Generator(np.random.PCG64DXSM(
            derived_seed(st.seed, _RACE_KEY, p, q, i, 0))))
        res = rollout(pos, games, settings=st.row(derived_seed(st.seed, _RACE_KEY, p, q, i, 1)),
                      runner=row_runner(runner, run_args, store_args, on_interrupt))
        if res.interrupted:
            return None, True, res.run_id, res.stored_games
        dec = money_cube_decision(res, position=pos)
        cube = {"action": dec.action, "nd": dec.nd, "dt": dec.dt, "dp": dec.dp, "x": dec.x,
                "double": not dec.nd > min(dec.dt, dec.dp), "take": dec.dt < dec.dp}
        keith, trice = keith_decision(pos), trice_decision(pos)
        keith["errors"], trice["errors"] = _errors(keith, dec), _errors(trice, dec)
        row = {"pips": p, "opponent_pips": q, "lead": lead, "index": i,
               "position_id": pos.to_position_id(),
               "rollout": {**{k: getattr(res, k) for k in (*PROBABILITY_KEYS, "equity")},
                           "stderr": dict(res.stderr), "games": res.games},
               "cube": cube, "keith": keith, "trice": trice, "seed": res.seed}
        if res.run_id is not None:
            row["run_id"] = res.run_id
        return row, False, res.run_id, res.stored_games

    return play_row


def _rule_totals(rows, rule: str) -> dict:
    d = sum(r[rule]["errors"]["double_wrong"] for r in rows)
    t = sum(r[rule]["errors"]["take_wrong"] for r in rows)
    cost = math.fsum(r[rule]["errors"]["cost_double"] + r[rule]["errors"]["cost_take"]
                     for r in rows)
    n = len(rows)
    return {"double_errors": d, "take_errors": t,
            "error_rate": (d + t) / (2 * n) if n else None,
            "mean_cost": cost / n if n else None}


def _race_summary(rows, cells) -> dict:
    out_cells = []
    for p, q, lead in cells:
        mine = [r for r in rows if (r["pips"], r["opponent_pips"], r["lead"]) == (p, q, lead)]
        if not mine:
            continue
        wins = [r["rollout"]["win"] for r in mine]
        k = len(mine)
        out_cells.append({
            "pips": p, "opponent_pips": q, "lead": lead, "positions": k,
            "win": math.fsum(wins) / k,
            "win_stderr": math.sqrt(math.fsum(r["rollout"]["stderr"]["win"] ** 2 for r in mine)) / k,
            "win_min": min(wins), "win_max": max(wins),
            "doubles": sum(r["cube"]["double"] for r in mine),
            "takes": sum(r["cube"]["take"] for r in mine),
            "keith_wrong": sum(r["keith"]["errors"]["double_wrong"] + r["keith"]["errors"]["take_wrong"]
                               for r in mine),
            "trice_wrong": sum(r["trice"]["errors"]["double_wrong"] + r["trice"]["errors"]["take_wrong"]
                               for r in mine)})
    return {"positions": len(rows), "cells": out_cells,
            "keith": _rule_totals(rows, "keith"), "trice": _rule_totals(rows, "trice")}
