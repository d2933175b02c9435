"""Which play is best? Candidate plays ranked by the evaluator, and rolled out side by side.

:func:`rank_plays` values every legal play of a roll by the ``nn`` evaluator (0 to 3 ply);
:func:`rollout_plays` rolls out the candidates with **common random numbers**: game ``j`` of
block ``k`` draws its dice from its own stream, the same for every candidate, so the same
rolls follow each play and the difference between two plays is estimated far more
precisely than either equity. Each play's difference from the best carries the standard
error of the paired difference (from the per-game differences), and the probability that it
is best comes from the joint normal distribution of the estimates.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..cube.decision import cubeful_value, is_plain_money
from ..cube.met import DEFAULT_MET
from ..cube.metfile import load_met
from ..engine import get_engine
from ..formats.dice import parse_dice
from ..game.matchstate import MatchState
from ..game.outcomes import PROBABILITY_KEYS
from ..game.parse import parse_game, position_and_roll
from ..game.plays import legal_plays
from ..spec import nply as _nply
from .blocks import BlockRecipe, abandoned, block_size_for, check_games, stratified_rolls
from .candidates import PlaysSettings, candidates_text, choose_candidates
from .cubeless import INDICATORS6, VR_PREFILTER, stored_counts_shape
from .paired import staged_statistics, survivors
from .runner import Runner, RunPlan, RunSession, configure, open_session
from .settings import rollout_settings

__all__ = ["rank_plays", "rollout_plays", "FILTER_PRESETS", "RankedPlay", "PlaysRolloutResult", "PLAYS_BLOCK_SIZE",
           "PRUNE_STAGE", "plays_block_size"]

#: The move filters of :func:`rank_plays` by name (:data:`fastbg.spec.nply.PRESETS`).
FILTER_PRESETS = tuple(_nply.PRESETS)
#: Games per block of a candidate rollout (9 x 36, so that quasi-random dice are balanced
#: in every block; slower policies use their smaller :func:`block_size_for`).
PLAYS_BLOCK_SIZE = 324
#: With pruning, the candidates are reconsidered after the minimum and then after every this
#: many blocks (a fixed number, not the worker count, so where plays are dropped depends only
#: on the seed).
PRUNE_STAGE = 2

_KEYS6 = (*PROBABILITY_KEYS, "equity")
_FLIP_CLASS = [3, 4, 5, 0, 1, 2]


def _to_mover(x: np.ndarray) -> np.ndarray:
    """Per-game values of the opponent on roll (..., 6) seen by the player who made the play."""
    out = np.empty_like(x)
    out[..., 0] = 1.0 - x[..., 0]
    out[..., 1] = x[..., 3]
    out[..., 2] = x[..., 4]
    out[..., 3] = x[..., 1]
    out[..., 4] = x[..., 2]
    out[..., 5] = -x[..., 5]
    return out


@dataclass
class RankedPlay:
    """A legal play and the evaluator's verdict on it, from the mover's point of view.

    Attributes
    ----------
    move : str
        Notation (``"24/18 13/11"``).
    position_id : str
        The position after the play, the opponent on roll.
    board : numpy.ndarray of int8, shape (2, 25)
        The position after the play, mover in row 0 (not swapped).
    probabilities : dict
        The five probabilities and ``equity`` (cubeless) after the play, mover's view.
    over : bool
        The play bears off the last checker (its result is certain).
    ply : int
        The ply it was valued at (a move filter may have stopped it short of the
        ranking's ply).
    cubeful_equity : float or None
        A cubeful ranking (:func:`rank_plays` with a cube state): the mover's cubeful
        equity after the play, the opponent's cube decision included, per unit of the
        current cube (money play), or its match winning chance as normalised equity (EMG,
        match play); None in a cubeless ranking.
    mwc : float or None
        Match play, cubeful ranking: the mover's match winning chance after the play.
    """

    move: str
    position_id: str
    board: np.ndarray
    probabilities: dict
    over: bool = False
    ply: int = 0
    cubeful_equity: float | None = None
    mwc: float | None = None

    @property
    def equity(self) -> float:
        """The cubeless equity after the play (mover's view, points per unit cube)."""
        return self.probabilities["equity"]

    @property
    def value(self) -> float:
        """What the ranking ranks by: :attr:`cubeful_equity` in a cubeful ranking (EMG in
        match play, the order of the MWC), else :attr:`equity`."""
        return self.equity if self.cubeful_equity is None else self.cubeful_equity


def _exact_class(board: np.ndarray) -> int:
    """The outcome class (mover's view) of a play that ends the game."""
    return get_engine("python").board.outcome(board) - 1


def rank_plays(position, dice, ply: int = 0, engine: str = "cython",
               move_filter=None, *, state: MatchState | None = None,
               cubeful: bool | None = None, x: float | None = None,
               met=None) -> list[RankedPlay]:
    """Every legal play of a roll, valued by the ``nn`` evaluator at 0 to 3 ply, best first.

    Plies are GNU Backgammon's (:mod:`fastbg.spec.nply`): a play's value at n ply is the
    n-ply value of the position after it, the opponent on roll (at 1 ply the average
    over the opponent's 21 rolls of the 0-ply value after its best 0-ply reply). As GNU
    Backgammon does, every play is valued at 0 ply and a move filter keeps the promising
    ones for each deeper evaluation; the others keep the value of the last ply they
    reached.

    Parameters
    ----------
    position : Position or str
        The position before the roll (an XGID may hold the roll instead of ``dice``).
    dice : str or tuple of int, optional when the position holds the roll
    ply : {0, 1, 2, 3}
    engine : {"cython", "python"}
        The same numbers from both (the pure-Python one takes seconds a play at 2 ply).
    move_filter : fastbg.spec.nply.MoveFilter, str or sequence, optional
        Which plays go deeper (:func:`fastbg.spec.nply.move_filter`: a preset name
        ``"normal"``, ``"large"`` or ``"all"``, a filter, or its levels); default
        :data:`fastbg.spec.nply.DEFAULT_FILTER`, GNU Backgammon's Normal (at 0 ply up to 8
        plays within 0.16 of the best; at 2 ply up to 2 within 0.04). In a cubeful ranking
        its thresholds are in cubeful equity (EMG in match play), as GNU Backgammon's.
    state : MatchState, optional
        Cube, owner, score and rules before the roll, from the mover's view. Default: the
        state an XGID or GNU Backgammon ``PositionID:MatchID`` pair carries, else money
        play with a centred cube.
    cubeful : bool, optional
        Rank by the cubeful value at the score (True) or by cubeless equity (False).
        Default (None): cubeful unless the state is plain money play (a centred 1-cube,
        no Jacoby rule: :func:`fastbg.cube.decision.is_plain_money`), so a match score or
        a turned cube ranks by match winning chances or cubeful equity, and money play
        with a centred cube ranks as before this option (by cubeless equity, the numbers
        of every earlier version).
    x : float, optional
        Cubeful ranking: the cube efficiency of every play's position (default each
        position's own, :func:`fastbg.cube.efficiency.cube_efficiency`).
    met : str or MatchEquityTable, optional
        Match play: the table (default Kazaross-XG2).

    Returns
    -------
    list of RankedPlay
        The plays valued at ``ply`` first, by :attr:`RankedPlay.value` (cubeless equity,
        or in a cubeful ranking the cubeful equity: EMG in match play, the order of the
        MWC), highest first, then those the filter dropped, by the value of the ply they
        reached (``RankedPlay.ply``), the deepest first; ties in canonical order. Empty
        when the roll has no legal play.

    Raises
    ------
    ValueError
        For a bad position or dice, a finished game, ``ply`` outside 0..3, a malformed
        filter, a state that is not a MatchState, or a score beyond the table.

    Notes
    -----
    **Cubeful ranking.** A play's value is that of the position after it, the opponent on
    roll before its cube decision, by Janowski's model on the play's n-ply cubeless
    probabilities (:func:`fastbg.cube.decision.cubeful_value` from the opponent's view,
    with the opponent's proper cube action and the mover's answer to a double): GNU
    Backgammon's 0-ply cubeful evaluation of a play, on the n-ply probabilities. The move
    filter prunes by these values; in match play they are compared as EMG (GNU
    Backgammon compares normalised equities too). Both engines give the same numbers.
    """
    ply = _nply.check_ply(ply)
    mf = _nply.move_filter(move_filter)
    pos, rolled, carried = _parse_with_state(position)
    dice = _dice(dice, rolled)
    state = carried if state is None else state
    if not isinstance(state, MatchState):
        raise ValueError(f"state must be a fastbg.MatchState, got {type(state).__name__}")
    if cubeful is None:
        cubeful = not is_plain_money(state)
    plays = legal_plays(pos, dice, engine=engine)
    if not plays:
        return []
    ev = get_engine(engine).evaluator.EvalPolicy()
    boards = np.array([p.board for p in plays], dtype=np.int8)
    if cubeful:
        probs, plies, values = _rank_cubeful(ev, pos.board, boards, ply, mf, state, x, met)
    else:
        _, probs, plies = ev.rank_nply(pos.board, boards, ply, mf)
        values = None
    out = []
    for j, (p, m, k) in enumerate(zip(plays, probs, plies)):
        eq = (2.0 * m[0] - 1.0) + (m[1] - m[3]) + (m[2] - m[4])
        d = dict(zip(PROBABILITY_KEYS, (float(x) for x in m)), equity=float(eq))
        r = RankedPlay(p.move, p.position_id, p.board, d, not p.board[0].any(), int(k))
        if values is not None:
            r.cubeful_equity, r.mwc = values[j]
        out.append(r)
    # the deepest first, then by value (stable: ties keep legal_plays' canonical order)
    order = sorted(range(len(out)), key=lambda i: (-out[i].ply, -out[i].value))
    return [out[i] for i in order]


def _parse_with_state(position):
    """Position, rolled dice (or None) and the cube state a text carries (money play with
    a centred cube for anything without one)."""
    if isinstance(position, str):
        s = position.strip()
        if s.upper().startswith("XGID=") or ":" in s:
            pos, state, dice = parse_game(s)
            return pos, dice, state
    pos, dice = position_and_roll(position)
    return pos, dice, MatchState.money()


def _after_play(state: MatchState) -> MatchState:
    """The state after a play, from the view of the opponent, now on roll (one more roll
    played, for the Holland rule)."""
    opp = state.swapped()
    if opp.rolls_played is not None:
        opp = dataclasses.replace(opp, rolls_played=opp.rolls_played + 1)
    return opp


def _rank_cubeful(ev, before, boards, ply, mf, state, x, met):
    """The plays of a roll valued cubefully, pruned by ``mf`` level by level on those
    values (a Python twin of the engines' ``rank_nply``, whose levels prune on cubeless
    equity): per play the mover's probabilities, the ply reached and ``(cubeful equity
    or EMG, MWC or None)``."""
    n = len(boards)
    table = None if state.is_money else load_met(DEFAULT_MET if met is None else met)
    opp = _after_play(state)
    probs = np.zeros((n, 5))
    plies = np.zeros(n, dtype=np.int64)
    values: list = [None] * n
    key = np.zeros(n)

    def value(j):
        m = probs[j]
        theirs = (1.0 - m[0], m[3], m[4], m[1], m[2])      # the opponent on roll
        over = not boards[j][0].any()
        v, emg = cubeful_value(theirs, opp, x=x, met=table, over=over,
                               position=None if over else boards[j][::-1])
        if state.is_money:
            return (-v, None), -v
        return (-emg, 1.0 - v), -emg

    alive = np.arange(n)
    for level in range(ply + 1):
        lv = mf.levels[level] if level < ply else None
        if level < ply and lv is None:
            continue                      # a skipped level: no evaluation, no pruning
        _, p, _ = ev.rank_nply(before, boards[alive], level, _nply.KEEP_ALL)
        for j, pj in zip(alive, p):
            probs[j], plies[j] = pj, level
            values[j], key[j] = value(j)
        if level == ply:
            break
        ranked = sorted(alive, key=lambda j: -key[j])      # stable: canonical order on ties
        keep = _nply.survivors([key[j] for j in ranked], lv.accept, lv.extra, lv.threshold)
        alive = np.array(ranked[:keep])
        if keep == 1:
            break                         # the choice is made (as rank_nply stops)
    return probs, plies, values


def _dice(dice, rolled):
    if dice is None:
        if rolled is None:
            raise ValueError("give the roll: the position has no dice rolled")
        return tuple(rolled)
    d = parse_dice(dice)
    if rolled is not None and sorted(d) != sorted(rolled):
        raise ValueError(f"the position has {rolled[0]}-{rolled[1]} rolled but dice is "
                         f"{d[0]}-{d[1]}: give one roll (or the same)")
    return d


@dataclass
class PlaysRolloutResult:
    """Candidate plays rolled out with the same dice, best first.

    Attributes
    ----------
    position_id : str
    dice : tuple of int
    plays : list of dict
        Per play: ``move``, ``position_id`` (after the play), the five probabilities and
        ``equity`` (cubeless, mover's view), ``stderr`` (same keys), ``diff`` (equity minus
        the best play's), ``diff_stderr`` (standard error of that paired difference),
        ``p_best`` (probability of being the best play), ``eval_equity`` (the 0- or 1-ply
        equity that chose it as a candidate).
    games : int
        Games per play.
    seed : int
    settings : dict
    seconds : float
    interrupted : bool
    workers : int
    run_id : int or None
        With a ``store``: the run's id in it.
    stored_games : int
        Games per play read from the store rather than played now.
    dask : str or None
        The Dask scheduler's address when the blocks ran on a cluster.
    """

    position_id: str
    dice: tuple
    plays: list
    games: int
    seed: int
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    workers: int = 1
    run_id: int | None = None
    stored_games: int = 0
    dask: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready: ``position_id``, ``dice``, ``plays``, ``games``, ``seed``,
        ``seconds``, ``interrupted``, ``workers``, ``settings`` (and ``run_id`` and
        ``stored_games`` of a stored run, ``dask`` of a run on a cluster)."""
        d = {"position_id": self.position_id, "dice": list(self.dice),
             "plays": [dict(p) for p in self.plays], "games": self.games, "seed": self.seed,
             "seconds": self.seconds, "interrupted": self.interrupted,
             "workers": self.workers, "settings": dict(self.settings)}
        if self.run_id is not None:
            d.update(run_id=self.run_id, stored_games=self.stored_games)
        if self.dask is not None:
            d["dask"] = self.dask
        return d


def plays_block_size(policy: str, depth: int = 0) -> int:
    """Games per block of a rollout of candidate plays: :data:`PLAYS_BLOCK_SIZE`, or a slower
    policy's smaller :func:`~fastbg.rollouts.blocks.block_size_for` (part of the
    reproducibility contract)."""
    return min(block_size_for(policy, depth), PLAYS_BLOCK_SIZE)


def _plays_block(*, settings: dict, engine: str, block_size: int, starts: list, over: list,
                 active: list, offset: int):
    """The block function of one stage of :func:`rollout_plays` (a
    :class:`~fastbg.rollouts.blocks.BlockRecipe`'s factory): the resolved settings
    (:meth:`PlaysSettings.as_dict`), the candidates ``active`` (of ``starts``, the positions
    after each play, the opponent on roll; ``over[g]`` the outcome class of a play that ends
    the game, else None), its block ``k0`` being the run's block ``k0 + offset``."""
    eng = get_engine(engine)
    policy, vr, quasi_random = settings["policy"], settings["vr"], settings["quasi_random"]
    entropy = settings["seed"]
    st = PlaysSettings(**settings)
    checker_ply, mfilter = st.checker_ply, st.checker_filter()
    yardstick = eng.evaluator.EvalPolicy() if vr else None

    def block(k0, n, _bitgen):
        k = k0 + offset
        sel = list(active)
        x = np.empty((len(sel), n, 6))
        counts = np.zeros((len(sel), 6), dtype=np.int64)
        # (a block's own policy: an n-ply one holds a workspace and cache for one thread)
        pol = eng.policies.checker_policy(policy, checker_ply, mfilter)
        # Game j of block k draws its dice from its own stream, SeedSequence(seed,
        # spawn_key=(k, j)), the same for every candidate: games that last longer after one
        # play than after another do not shift the dice of the games after them.
        streams = np.random.SeedSequence(entropy, spawn_key=(k,)).spawn(n)
        q = stratified_rolls(entropy, k * block_size, n, False) if quasi_random else None
        buf = np.empty((1, 6))
        cls = np.empty(1, dtype=np.int8)
        for c, g in enumerate(sel):     # c: the row of this block, g: the candidate
            if over[g] is not None:
                cls_over = over[g]
                x[c] = INDICATORS6[cls_over]
                counts[c, cls_over] = n
                continue
            for j in range(n):
                if abandoned():        # a second Ctrl-C: play_block discards the block
                    return counts, None
                bitgen = np.random.PCG64DXSM(streams[j])
                if vr:
                    cnt, _ = eng.rollout_block_vr(starts[g], 1, bitgen, pol, yardstick,
                                                  prefilter=VR_PREFILTER, per_game=buf,
                                                  qrolls=None if q is None else q[j:j + 1])
                    x[c, j] = _to_mover(buf[0])
                    counts[c] += np.asarray(cnt)[_FLIP_CLASS]
                else:
                    eng.rollout_block(starts[g], 1, bitgen, pol, classes=cls,
                                      qrolls=None if q is None else q[j:j + 1])
                    x[c, j] = _to_mover(INDICATORS6[cls[0]])
                    counts[c, _FLIP_CLASS[cls[0]]] += 1
        s = x.sum(axis=1)
        ss = (x * x).sum(axis=1)
        e = x[:, :, 5]
        m = len(sel)
        cross = np.array([[(e[a] * e[b]).sum() for b in range(m)] for a in range(m)])
        return counts, np.concatenate([s.ravel(), ss.ravel(), cross.ravel()])

    return block


def rollout_plays(position, dice=None, games: int = 1296, *,
                  settings: PlaysSettings | None = None, runner: Runner | None = None,
                  **overrides) -> PlaysRolloutResult:
    """Roll out the candidate plays of a roll with common random numbers.

    Parameters
    ----------
    position : Position or str
        The position before the roll (an XGID may hold the roll).
    dice : str or tuple of int, optional
        The roll to play (required unless the position holds it).
    games : int
        Games per candidate.
    settings : PlaysSettings, optional
        Everything the numbers depend on besides the position, the roll and ``games``
        (:class:`fastbg.rollouts.candidates.PlaysSettings`; default: its defaults).
    runner : Runner, optional
        Where and how the games are played (:class:`fastbg.rollouts.runner.Runner`:
        engine, threads, Dask, store, callbacks; default: its defaults).
    **overrides
        Any field of the settings or of the runner, by name (below), replacing the one of
        ``settings`` or ``runner``: ``rollout_plays(pos, "31", 1296, seed=7, top=3)``. An
        unknown name is a TypeError.

    Other Parameters
    ----------------
    seed, workers, policy, engine
        As :func:`fastbg.rollout`; after each play the opponent rolls, with ordinary dice.
    top : int, optional
        The ``top`` best plays at ``ply`` instead of the default choice.
    plays : list of str, optional
        These plays (notation, any order of moves) instead.
    ply : {0, 1}
        The evaluation that ranks the candidates.
    checker_ply : int, default 0
        The checker play of the games after each candidate: 0, ``policy`` as it plays; 1..3,
        the ``nn`` evaluator's n-ply ranking through ``move_filter`` (default
        ``"normal"``), as :func:`fastbg.rollout`'s ``ply`` (blocks of 100 games at 1 ply,
        10 at 2 ply).
    move_filter : str or dict, optional
        With ``checker_ply``: the move filter of its rankings.
    within, max_plays, min_plays : float, int, int
        Default candidates: the plays within ``within`` equity of the best, at most
        ``max_plays``, and at least the ``min_plays`` best (default
        :data:`~fastbg.rollouts.candidates.MIN_PLAYS`, 2)
        when there are that many legal plays and ``max_plays`` allows: one play rolled out
        alone is compared with nothing.
    vr : bool, optional
        Variance reduction, as :func:`fastbg.rollout` (default: on for the nn policies).
    quasi_random : bool, default True
        Quasi-random dice, as :func:`fastbg.rollout`: the opponent's first reply and the
        roll after it stratified over the games, the same for every candidate.
    prune_se : float, optional
        Stop rule: once ``min_games`` are in, and then after every :data:`PRUNE_STAGE` blocks
        (648 games), drop the plays more than ``prune_se`` standard errors of the paired
        difference behind the best; they keep the games they played (``games`` and
        ``pruned`` in their row). The stages are fixed block ranges, so the result depends
        only on the seed and the settings. ``None`` (default): every candidate plays every
        game.
    min_games : int, optional
        With ``prune_se``: no pruning before this many games (rounded up to whole blocks of
        :data:`PLAYS_BLOCK_SIZE` games; default :data:`PRUNE_STAGE` blocks, 648 games).
    progress, on_interrupt : callable, optional
        As :func:`fastbg.rollout`; ``progress`` counts games per candidate.
    on_block : callable, optional
        ``on_block(k, games, counts, sums)``, called as each block is merged, in block order
        (not for blocks read from the store): counts of shape ``(m, 6)`` and the sums of the
        ``m`` candidates the block played (:mod:`fastbg.rollouts.paired`); for a convergence
        plot (:func:`fastbg.research.convergence`, kind ``"plays"``).
    store, run_id, table_run : optional
        As :func:`fastbg.rollout`: keep the run in a results store block by block (each
        block's counts and sums of every candidate still played), continue stored run
        ``run_id`` (same position, roll and settings; ``games`` may grow), or store a new
        run as a row of table run ``table_run``. Where pruning dropped plays is decided
        again from the stored blocks, so a resumed run ends with the numbers of one
        uninterrupted run. The request stored is ``position``, ``dice``, ``games`` and the
        resolved settings' :meth:`~PlaysSettings.as_dict`, so :func:`fastbg.resume` needs
        only the store and the run's id.
    dask : bool or str or distributed.Client, optional
        Play the blocks on a Dask cluster, as :func:`fastbg.rollout`; the same numbers.

    Returns
    -------
    PlaysRolloutResult

    Raises
    ------
    ValueError
        For a bad position, dice, play, option, a roll with no legal play, a finished
        game or one where neither side can ever move (:meth:`fastbg.Position.check_playable`).
    TypeError
        For a keyword that is no setting and no field of the runner.

    Notes
    -----
    Game ``j`` of block ``k`` of every candidate draws its dice from its own
    ``PCG64DXSM(SeedSequence(seed, spawn_key=(k, j)))``: the same rolls follow each play
    (common random numbers), game by game. The standard error of a difference is that of the
    per-game differences; ``p_best`` is the share of 20,000 draws from the estimates' joint
    normal distribution (means and covariance of the per-game equities, a fixed draw seed)
    in which the play has the highest equity. **Reproducibility**: as :func:`fastbg.rollout`,
    the numbers depend only on the seed and the settings, not on ``workers`` nor on a Dask
    cluster.
    """
    settings, runner = configure(PlaysSettings, settings, runner, overrides, "rollout_plays")
    pos, rolled = position_and_roll(position)
    pos.check_playable()   # before any game: over, or nobody can ever move
    dice = _dice(dice, rolled)
    games = check_games(games)
    settings.check_games(games)
    st = settings.resolve()
    # every play valued at the candidates' ply (no filter: the candidates as before)
    ranked = rank_plays(pos, dice, ply=st.ply, engine=runner.engine, move_filter=_nply.KEEP_ALL)
    if not ranked:
        raise ValueError(f"{dice[0]}-{dice[1]} has no legal play here: nothing to compare")
    cands = choose_candidates(ranked, st, pos, dice, runner.engine)
    plan = _plan(pos, dice, games, st, runner.engine, ranked, cands)
    with open_session(plan, runner, pos.board, games, st.seed) as session:
        stages, interrupted = _play_stages(session, st, cands)
        seconds = session.elapsed()
    return _finish(session, pos, dice, st, cands, stages, interrupted, seconds)


def _first_stop(st: PlaysSettings, block_size: int) -> int:
    """The block before which pruning first looks at the candidates."""
    return PRUNE_STAGE if st.min_games is None else max(1, -(-st.min_games // block_size))


def _plan(pos, dice, games: int, st: PlaysSettings, engine: str, ranked, cands) -> RunPlan:
    """What :func:`~fastbg.rollouts.runner.open_session` needs of a rollout of plays: its
    request (``position``, ``games``, ``dice`` and the settings) and its record."""
    block_size = plays_block_size(st.policy, st.checker_ply)
    request = dict(position=pos.to_position_id(), games=games, dice=list(dice), **st.as_dict())
    first_stop = _first_stop(st, block_size)
    settings = rollout_settings(
        policy=st.policy, seed=st.seed, games=games, block_size=block_size, vr=st.vr,
        vr_prefilter=VR_PREFILTER if st.vr else None, first_roll="rolled", engine=engine,
        ply=st.checker_ply, move_filter=st.move_filter,
        dice_method=("quasi-random (first two rolls stratified), a stream per game"
                     if st.quasi_random else "pseudo-random, a stream per game"),
        dice_played=list(dice), candidates_by=None if st.plays else f"nn {st.ply}-ply",
        candidates=candidates_text(st, ranked, len(cands)),
        common_random_numbers=True, candidate_moves=[c.move for c in cands],
        prune=None if st.prune_se is None else {"prune_se": float(st.prune_se),
                                                "min_games": min(games, first_stop * block_size),
                                                "stage_games": PRUNE_STAGE * block_size})
    # (pruning shrinks the blocks' counts: their shape is checked only without it)
    return RunPlan(kind="plays", request=request, settings=settings, block_size=block_size,
                   counts_shape=(len(cands), 6),
                   stored_shape=stored_counts_shape("plays", request, settings))


def _play_stages(session: RunSession, st: PlaysSettings, cands) -> tuple[list, bool]:
    """Play the run's blocks, in stages when it prunes: ``(stages, interrupted)``, each
    stage ``(candidates, games, counts, sums)`` (:mod:`fastbg.rollouts.paired`)."""
    starts = [np.ascontiguousarray(c.board[::-1]) for c in cands]
    over = [_exact_class(c.board) if c.over else None for c in cands]
    nblocks, size = session.blocks, session.plan.block_size
    noticed = []                # Ctrl-C in a stage's last blocks ends that stage whole

    def interrupt(running: int) -> None:
        noticed.append(running)
        if session.runner.on_interrupt is not None:
            session.runner.on_interrupt(running)

    stages, active, offset, interrupted = [], list(range(len(cands))), 0, False
    while offset < nblocks and not interrupted:
        first = offset
        stop = nblocks if st.prune_se is None else min(
            nblocks, _first_stop(st, size) if first == 0 else first + PRUNE_STAGE)
        block = BlockRecipe(_plays_block, dict(
            settings=st.as_dict(), engine=session.runner.engine, block_size=size,
            starts=starts, over=over, active=list(active), offset=first))
        run = session.play(block, first=first, stop=stop, counts_shape=(len(active), 6),
                           on_interrupt=interrupt)
        interrupted = run.interrupted or bool(noticed and stop < nblocks)
        if run.games:
            stages.append((list(active), run.games, run.counts, run.sums))
        offset = stop
        if st.prune_se is not None and run.games and offset < nblocks and len(active) > 1:
            active = survivors(stages, float(st.prune_se))
    return stages, interrupted


def _finish(session: RunSession, pos, dice, st: PlaysSettings, cands, stages,
            interrupted: bool, seconds: float) -> PlaysRolloutResult:
    """The result of a played rollout of plays, recorded in its store if it has one."""
    n = sum(stage[1] for stage in stages)
    out = staged_statistics(cands, stages, len(cands)) if n else []
    stored = session.stored
    result = PlaysRolloutResult(position_id=pos.to_position_id(), dice=tuple(dice), plays=out,
                                games=n, seed=st.seed, settings=session.plan.settings,
                                seconds=seconds, interrupted=interrupted,
                                workers=session.workers,
                                run_id=None if stored is None else stored.run_id,
                                stored_games=session.stored_games, dask=session.address)
    if stored is not None and not stored.finish(interrupted, _summary(out, n, interrupted)):
        result.run_id = None   # stopped before its first block: not kept
    return result


def _summary(plays: list, games: int, interrupted: bool) -> dict:
    """What a store keeps of a finished rollout of plays (``fastbg runs`` lists it)."""
    best = plays[0] if plays else None
    return {"games": games, "interrupted": interrupted, "best": best and best["move"],
            "equity": best and best["equity"],
            "stderr": best and {"equity": best["stderr"]["equity"]},
            "plays": [{k: p[k] for k in ("move", "equity", "diff", "diff_stderr", "p_best")}
                      | {"se": p["stderr"]["equity"], "games": p["games"]} for p in plays]}
