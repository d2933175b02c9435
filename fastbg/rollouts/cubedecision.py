"""The cube decision of a position by any of ``fastbg cube``'s methods: :func:`cube_decision`.

Three ways to value No double, Double/take and Double/pass (:data:`METHODS`):

- ``"rollout"``: a cube rollout (:func:`fastbg.rollouts.cuberollout.cube_rollout`), both
  lines played as cubeful games with the same dice;
- ``"janowski"``: a cubeless rollout (:func:`fastbg.rollouts.cubeless.rollout`) and
  Janowski's model on its probabilities, with delta-method standard errors
  (:func:`fastbg.cube.decision.janowski_cube_decision`);
- ``"exact"``: money play in a small bear-off, read from the two-sided bear-off database
  (:func:`fastbg.cube.decision.exact_cube_decision`), no rollout;
- ``"eval"``: no rollout either: the evaluator's cubeless probabilities at 0 to 3 ply
  (:func:`fastbg.nn.evaluate`) and Janowski's model on them, money or match (the values of
  ``"janowski"`` without standard errors: an evaluation has no sampling error, and its
  bias, the evaluator's, is not measured here);

and ``"auto"``, the database where it applies, else the cube rollout. Whatever the method,
the result (:class:`CubeDecision`) says whether the trials decide it
(:func:`fastbg.cube.stats.too_close`), and its :meth:`~CubeDecision.to_dict` is the JSON of
``fastbg cube --json``.

Reproducibility
---------------
Same fastbg version + same seed + same arguments = same numbers, as the rollout behind the
method (:func:`~fastbg.rollouts.cuberollout.cube_rollout`,
:func:`~fastbg.rollouts.cubeless.rollout`); ``"exact"`` and ``"eval"`` have no randomness
(both engines give ``"eval"`` the same probabilities, bit for bit).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..cube.decision import (EXACT_SOURCE, STDERR_METHOD, exact_cube_decision,
                             janowski_cube_decision)
from ..cube.efficiency import cube_efficiency
from ..cube.met import DEFAULT_MET, MatchEquityTable
from ..cube.metfile import load_met
from ..cube.money import probability_covariance
from ..cube.stats import MIN_DECIDING_TRIALS, too_close
from ..game.matchstate import MatchState
from ..game.outcomes import PROBABILITY_KEYS
from ..game.parse import parse_game
from ..game.position import Position
from ..nn import evaluate
from .cubeless import DEFAULT_POLICY, RolloutResult, rollout
from .cuberollout import CubeRolloutResult, cube_rollout, decided_by_first_roll
from .cubesettings import METHODS, CubeDecisionSettings, CubeRolloutSettings
from .runner import Runner, configure
from .settings import RolloutSettings

__all__ = ["METHODS", "DEFAULT_GAMES", "BIAS_NOTE", "EVAL_NOTE", "CubeDecision", "state_dict",
           "cube_decision", "cube_method"]

#: Trials (``"rollout"``) or games (``"janowski"``) unless ``games`` says otherwise: a cube
#: rollout of 4 x 1,296 trials (each played in both lines; about 20 s on 2 cores from the
#: start), or 20,000 cubeless games (about ten seconds on two cores with the network,
#: standard errors of about 0.0035 on the win probability).
DEFAULT_GAMES = {"rollout": 5_184, "janowski": 20_000}

#: What the numbers of a rollout-based decision carry besides the luck of the dice.
BIAS_NOTE = (
    "The probabilities come from a cubeless rollout in which one policy plays both sides. "
    "The policy (the network, nn, by default) plays far from perfectly, so the probabilities, and "
    "the decision, carry its bias; the standard errors measure only the luck of the dice."
)

#: What the numbers of ``method="eval"`` carry, and how they differ from GNU Backgammon's
#: evaluation of a cube decision at the same ply.
EVAL_NOTE = (
    "Janowski's model on the evaluator's cubeless probabilities at the ply asked (no "
    "sampling error; the evaluator's own error is not measured). GNU Backgammon's cube "
    "evaluation at 1 ply and more averages cubeful values over the rolls instead (each leaf "
    "valued by the same model at 0 ply, the cube decisions made at each node): the two agree "
    "at 0 ply given the same probabilities and differ a little at 1 ply, more at 2 "
    "(experiments/cube_eval_vs_gnubg.py, docs/cube.md)."
)

#: Probabilities that every cube state can value: the arguments are checked with the
#: decision's own errors on them before any game is played.
_PROBE = (0.5, 0.15, 0.01, 0.15, 0.01)


def state_dict(state: MatchState) -> dict:
    """The cube and match state of every ``fastbg cube --json``."""
    return {"match_length": state.match_length, "score": list(state.score),
            "away": list(state.away) if state.away else None, "cube": state.cube,
            "cube_owner": state.cube_owner, "crawford": state.crawford,
            "post_crawford": state.post_crawford, "jacoby": state.jacoby,
            "beaver": state.beaver, "holland": state.holland,
            "rolls_played": state.rolls_played}


def _unit(state: MatchState, emg: bool = False) -> str:
    if state.is_money:
        return "equity per unit of the current cube"
    return ("match winning chance (EMG: equity per unit of the current cube)" if emg
            else "match winning chance")


def _nan(v) -> float:
    return float("nan") if v is None else v


@dataclass(frozen=True)
class CubeDecision:
    """The result of :func:`cube_decision`: what ``fastbg cube`` prints.

    Attributes
    ----------
    method : {"exact", "rollout", "janowski", "eval"}
        The method used (``"auto"`` resolved).
    position : Position
        The position, the player on roll before its cube decision.
    state : MatchState
        The cube state valued (the starting position counts as no roll played for the
        Holland rule: :meth:`MatchState.for_position`).
    decision : dict or None
        The ``decision`` object of ``fastbg cube --json`` (NaN where the command writes
        ``null``); None when an interruption left no game played. Every method:
        ``action``, ``can_double``, ``why_not`` (when it may not double), ``nd``, ``dt``,
        ``dp``. ``"rollout"``: as :meth:`CubeRolloutResult.to_dict`'s (``stderr`` with
        ``dt_minus_nd``, signed ``z``, ``certain``) and ``too_close``. ``"janowski"``: as
        :func:`fastbg.cube.decision.janowski_cube_decision`'s, ``certain`` and
        ``too_close``. ``"exact"``: as :func:`fastbg.cube.decision.exact_cube_decision`'s.
        ``"eval"``: as ``"janowski"``'s without ``stderr``, ``margins`` and ``z`` (no
        sampling error), with ``ply``.
    result : RolloutResult or CubeRolloutResult or None
        The rollout behind the decision (None for ``"exact"``).
    win : float or None
        ``"exact"``: the database's cubeless winning chance.
    x : float or None
        ``"janowski"``: the cube efficiency of the model (``x_source`` says where from);
        ``"rollout"``: the ``x`` given for the cube decisions inside the games (None: each
        position's own); ``"exact"``: None.
    x_source : str or None
        ``"janowski"``: :func:`fastbg.cube.efficiency.cube_efficiency`'s words.
    met : MatchEquityTable or None
        The table of a match-play decision.
    policy, engine : str
        As given.
    ply : int or None
        ``"eval"``: the ply of the evaluation (None for the other methods).
    probabilities : dict or None
        ``"eval"``: the evaluation, as :func:`fastbg.nn.evaluate` returns it (the five
        probabilities, ``equity``, ``class``, ``evaluated_by``, ...).
    seconds : float or None
        ``"eval"``: wall time of the evaluation (the first in a process includes loading
        the nets).
    valued_exactly : bool
        ``"rollout"``: the trials cannot vary (:attr:`CubeRolloutResult.certain`) or, with
        variance reduction in a race, at least :data:`~fastbg.cube.stats.MIN_DECIDING_TRIALS`
        trials all had the same luck-adjusted value in both lines: the bear-off databases
        valued every position after the first roll exactly, so the policy's play and the
        in-game cube decisions bias nothing either. Such a decision is decided by how much,
        not in standard errors. ``"exact"``: True.
    """

    method: str
    position: Position
    state: MatchState
    decision: dict | None
    result: RolloutResult | CubeRolloutResult | None = None
    win: float | None = None
    x: float | None = None
    x_source: str | None = None
    met: MatchEquityTable | None = None
    policy: str = DEFAULT_POLICY
    engine: str = "cython"
    valued_exactly: bool = False
    ply: int | None = None
    probabilities: dict | None = None
    seconds: float | None = None

    # ------------------------------------------------------------- the decision's parts
    @property
    def mode(self) -> str:
        """``"money"`` or ``"match"``."""
        return "money" if self.state.is_money else "match"

    @property
    def action(self) -> str | None:
        """The proper action (one of :data:`fastbg.cube.ACTIONS`, "Redouble" wording for the
        player's own cube); None when no game was played."""
        return None if self.decision is None else self.decision["action"]

    @property
    def can_double(self) -> bool:
        """Whether the player on roll may double (:attr:`MatchState.may_double`)."""
        return self.state.may_double if self.decision is None else self.decision["can_double"]

    @property
    def why_not(self) -> str | None:
        """Why the player on roll may not double, or None."""
        return (self.state.why_not_double if self.decision is None
                else self.decision.get("why_not"))

    @property
    def nd(self) -> float:
        """No double: equity per unit of the current cube (money) or MWC (match)."""
        return self._value("nd")

    @property
    def dt(self) -> float:
        """Double/take, as :attr:`nd`; NaN when the player may not double."""
        return self._value("dt")

    @property
    def dp(self) -> float:
        """Double/pass, as :attr:`nd`; NaN when the player may not double."""
        return self._value("dp")

    def _value(self, key: str) -> float:
        return float("nan") if self.decision is None else _nan(self.decision.get(key))

    @property
    def stderr(self) -> dict | None:
        """Standard errors of the values (``"exact"``: None; NaN where undefined)."""
        if self.decision is None or "stderr" not in self.decision:
            return None
        return {k: _nan(v) for k, v in self.decision["stderr"].items()}

    @property
    def too_close(self) -> list | None:
        """The halves of the decision (``"double"``, ``"take"``) that the trials do not
        decide (:func:`fastbg.cube.stats.too_close`): ``[]`` when decided, None when the
        player may not double (or no game was played); always ``[]`` for ``"exact"``."""
        if self.decision is None or not self.decision["can_double"]:
            return None
        return self.decision.get("too_close", [])

    @property
    def certain(self) -> bool:
        """The trials cannot vary: every roll ends the game at once, whatever is played
        (:func:`fastbg.rollouts.cuberollout.decided_by_first_roll`); True for
        ``"exact"``."""
        if self.method == "exact":
            return True
        return bool(self.decision and self.decision.get("certain"))

    @property
    def games(self) -> int:
        """Trials (``"rollout"``) or games (``"janowski"``) played; 0 for ``"exact"``."""
        return 0 if self.result is None else self.result.games

    @property
    def interrupted(self) -> bool:
        """A Ctrl-C stopped the rollout early (the decision is of the games played)."""
        return self.result is not None and self.result.interrupted

    # ------------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The JSON of ``fastbg cube --json`` (NaN and infinities as they are: the command
        writes them as ``null``).

        ``"exact"``: ``position_id``, ``xgid``, ``mode``, ``method``, ``exact`` (True),
        ``source``, ``win``, ``cubeless_equity``, ``state``, ``unit``, ``decision``.
        ``"rollout"``: :meth:`CubeRolloutResult.to_dict` with ``decision.too_close``, and
        ``xgid``, ``policy``, ``engine``, ``x``, ``met``, ``counts``, ``state``, ``unit``.
        ``"janowski"``: :meth:`RolloutResult.to_dict` and ``mode``, ``method``, ``xgid``,
        ``state``, ``x``, ``x_source``, ``met``, ``unit``, ``decision``,
        ``stderr_method``, ``note``.
        ``"eval"``: ``position_id``, ``xgid``, ``mode``, ``method``, ``ply``, ``engine``,
        the five probabilities and ``equity`` (cubeless), ``class``, ``evaluated_by``,
        ``state``, ``x``, ``x_source``, ``met``, ``unit``, ``decision``, ``seconds``,
        ``note``.
        """
        pos, state = self.position, self.state
        met = None if self.met is None else (self.met.name or self.met.source)
        if self.method == "exact":
            return {"position_id": pos.to_position_id(), "xgid": state.to_xgid(pos),
                    "mode": "money", "method": "exact", "exact": True, "source": EXACT_SOURCE,
                    "win": self.win, "cubeless_equity": 2 * self.win - 1,
                    "state": state_dict(state), "unit": _unit(state),
                    "decision": dict(self.decision)}
        if self.method == "eval":
            ev = self.probabilities
            return {"position_id": pos.to_position_id(), "xgid": state.to_xgid(pos),
                    "mode": self.mode, "method": "eval", "ply": self.ply, "engine": self.engine,
                    **{k: ev[k] for k in (*PROBABILITY_KEYS, "equity")},
                    "class": ev["class"], "evaluated_by": ev["evaluated_by"],
                    "state": state_dict(state), "x": self.x, "x_source": self.x_source,
                    "met": met, "unit": _unit(state, emg=True), "decision": dict(self.decision),
                    "seconds": self.seconds, "note": EVAL_NOTE}
        res = self.result
        out = res.to_dict()
        if self.method == "rollout":
            if self.decision is not None:
                out["decision"]["too_close"] = self.decision["too_close"]
            out.update(xgid=state.to_xgid(pos), policy=self.policy, engine=self.engine,
                       x=self.x, met=met,
                       counts=[[[int(v) for v in row] for row in line] for line in res.counts],
                       state=state_dict(state), unit=_unit(state))
            return out
        out.update(mode=self.mode, method="janowski", xgid=state.to_xgid(pos),
                   state=state_dict(state), x=self.x, x_source=self.x_source, met=met,
                   unit=_unit(state, emg=True), decision=self.decision,
                   stderr_method=STDERR_METHOD[self.mode], note=BIAS_NOTE)
        return out


def _parse(position, state):
    """Position and state of :func:`cube_decision`: a text's own state unless one is given;
    the dice must not be rolled, and the game must be playable."""
    if isinstance(position, str):
        pos, carried, dice = parse_game(position)
    else:
        pos, carried, dice = Position.parse(position), MatchState.money(), None
    if dice is not None:
        raise ValueError(f"the position has the dice rolled ({dice[0]}-{dice[1]}): the cube "
                         "is turned before the roll; give the position before it")
    state = carried if state is None else state
    if not isinstance(state, MatchState):
        raise ValueError(f"state must be a fastbg.MatchState, got {type(state).__name__}")
    pos.check_playable()   # before any game: over, or nobody can ever move
    return pos, state.for_position(pos.board)


def cube_method(position, state: MatchState | None = None, method: str = "auto") -> str:
    """The method :func:`cube_decision` uses for ``method``: ``"auto"`` resolved.

    Parameters
    ----------
    position, state
        As :func:`cube_decision`.
    method : {"auto", "exact", "janowski", "rollout", "eval"}
        ``"auto"`` is ``"exact"`` where :func:`fastbg.cube.decision.exact_cube_decision`
        applies (money play without beavers, the cube below its limit, a bear-off of 1 to 6
        checkers a side, all home), else ``"rollout"``.

    Returns
    -------
    {"exact", "janowski", "rollout", "eval"}

    Raises
    ------
    ValueError
        For an unknown method, a position that cannot be read, has the dice rolled or is
        over, or ``"exact"`` where the database does not apply.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: one of {', '.join(METHODS)}")
    pos, state = _parse(position, state)
    if method in ("janowski", "rollout", "eval"):
        return method
    if exact_cube_decision(pos, state) is not None:
        return "exact"
    if method == "exact":
        raise ValueError("method 'exact' needs money play (no beavers, cube below its limit) "
                         "in a bear-off of 1 to 6 checkers a side, all home: the two-sided "
                         "bear-off database's positions")
    return "rollout"


def cube_decision(position, games: int | None = None, *,
                  settings: CubeDecisionSettings | None = None, runner: Runner | None = None,
                  **overrides) -> CubeDecision:
    """The cube decision of the player on roll, by the method of ``fastbg cube --method``.

    Parameters
    ----------
    position : Position, str or array_like
        The position before the player on roll's cube decision (no dice rolled): anything
        :func:`fastbg.parse_game` or :meth:`fastbg.Position.parse` reads.
    games : int, optional
        ``"rollout"``: trials, each played in both lines; ``"janowski"``: games of the
        cubeless rollout. Default :data:`DEFAULT_GAMES` of the method.
    settings : CubeDecisionSettings, optional
        The method and the settings of the rollout behind it
        (:class:`fastbg.rollouts.cubesettings.CubeDecisionSettings`; default: its defaults).
    runner : Runner, optional
        Where and how the rollout plays (:class:`fastbg.rollouts.runner.Runner`; its
        ``store`` keeps a cube rollout as a run of kind ``"cube"``, the ``"janowski"``
        method's cubeless rollout as a ``"rollout"``).
    **overrides
        Any field of the settings or of the runner, by name (below); an unknown name is a
        TypeError.

    Other Parameters
    ----------------
    state : MatchState, optional
        Cube, owner, score and rules. Default: the state an XGID or GNU Backgammon
        ``PositionID:MatchID`` pair carries, else money play with a centred cube.
    method : {"auto", "exact", "janowski", "rollout", "eval"}
        See the module docstring and :func:`cube_method` (``"auto"``: the database where
        it applies, else a cube rollout; ``"eval"``: Janowski's model on an n-ply
        evaluation, no rollout).
    ply : {0, 1, 2, 3}
        ``"eval"``: the ply of the evaluation (:func:`fastbg.nn.evaluate`; GNU
        Backgammon's plies, 0 the evaluator alone); the other methods refuse a ply.
    seed, policy, engine, workers, progress, on_interrupt, dask, store, run_id
        The rollout's, as :func:`fastbg.rollouts.cubeless.rollout` (unused by
        ``"exact"``).
    x : float, optional
        Cube efficiency in [0, 1]. ``"janowski"``: of the model (default
        :func:`fastbg.cube.efficiency.cube_efficiency`: GNU Backgammon's for the position,
        0 on the last roll and for a cube at its limit); ``"rollout"``: of the cube
        decisions inside the games (default each position's own).
    met : str or MatchEquityTable, optional
        Match play: the table (default Kazaross-XG2); ignored in money play.
    vr, quasi_random : bool, optional
        ``"rollout"``: variance reduction (default on for the nn policies) and quasi-random
        dice (default on), as :func:`~fastbg.rollouts.cuberollout.cube_rollout`.
        ``"janowski"`` refuses them True: its cubeless rollout is not variance-reduced (the
        error model reads the outcome counts).

    Returns
    -------
    CubeDecision
        ``decision`` None when a Ctrl-C stopped the rollout before any game finished.

    Raises
    ------
    ValueError
        Before any game is played: a position that cannot be read, has the dice rolled or
        is over; a state that is not a MatchState; an unknown method; ``x`` outside
        [0, 1], a score beyond the table or any error of
        :func:`~fastbg.cube.decision.janowski_cube_decision` for this state; for
        ``"exact"``, a position outside the database or rollout arguments given
        (``games``, ``seed``, ``workers``, ``dask``, ``store``, ``x``, ``vr``,
        ``quasi_random``, a ``policy`` or ``engine`` other than the default); for
        ``"janowski"``, ``vr`` or ``quasi_random`` True; for ``"eval"``, rollout arguments
        given (as for ``"exact"``, ``x`` and ``engine`` apart); the rollout's errors.
    TypeError
        For a keyword that is no setting and no field of the runner.

    Notes
    -----
    The rollout-based methods carry the policy's bias (:data:`BIAS_NOTE`); their margins
    decide only with at least :data:`~fastbg.cube.stats.MIN_DECIDING_TRIALS` trials, each
    half of the decision at least :data:`~fastbg.cube.stats.CLOSE_Z` standard errors from
    the other choice (``decision["too_close"]``).

    Examples
    --------
    >>> d = cube_decision("ZQEAgC0AAAAAAA")      # a small bear-off: the database
    >>> d.method, d.action, round(d.nd, 4), round(d.dt, 4)
    ('exact', 'Double, pass', 0.8362, 1.2792)
    >>> d = cube_decision("ZQEAgC0AAAAAAA", method="eval", ply=1)   # Janowski at 1 ply
    >>> d.method, d.action
    ('eval', 'Double, pass')
    """
    s, runner = configure(CubeDecisionSettings, settings, runner, overrides, "cube_decision")
    pos, state = _parse(position, s.state)
    table = None if state.is_money else load_met(DEFAULT_MET if s.met is None else s.met)
    x_model, x_source = cube_efficiency(pos, state, s.x)
    if s.method != "eval":      # ("eval" values the state at once: the same errors)
        janowski_cube_decision(_PROBE, state, x=x_model, met=table)   # the state's own errors
    if s.method == "exact":
        given = [name for name, v in (
            ("games", games), ("seed", s.seed), ("workers", runner.workers),
            ("dask", runner.dask), ("store", runner.store),
            ("policy", None if s.policy == DEFAULT_POLICY else s.policy),
            ("engine", None if runner.engine == "cython" else runner.engine), ("x", s.x),
            ("vr", s.vr), ("quasi_random", s.quasi_random)) if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not "
                             "apply to method 'exact', which reads the two-sided bear-off "
                             "database (no rollout, no cube efficiency)")
    if s.method == "eval":
        given = [name for name, v in (
            ("games", games), ("seed", s.seed), ("workers", runner.workers),
            ("dask", runner.dask), ("store", runner.store),
            ("policy", None if s.policy == DEFAULT_POLICY else s.policy),
            ("vr", s.vr), ("quasi_random", s.quasi_random)) if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not "
                             "apply to method 'eval', which evaluates the position at "
                             "n ply (no rollout)")
        return _by_evaluation(pos, state, table, s.ply, runner.engine, x_model, x_source)
    method = cube_method(pos, state, s.method)
    common = dict(position=pos, state=state, met=table, policy=s.policy, engine=runner.engine)
    if method == "exact":
        win, decision = exact_cube_decision(pos, state)
        return CubeDecision(method="exact", decision=decision, win=win, valued_exactly=True,
                            **common)
    games = DEFAULT_GAMES[method] if games is None else games
    if method == "rollout":
        return _by_rollout(pos, games, CubeRolloutSettings(
            seed=s.seed, policy=s.policy, state=state, x=s.x, met=table, vr=s.vr,
            quasi_random=s.quasi_random is not False), runner, common)
    if s.vr or s.quasi_random:
        raise ValueError("vr and quasi_random are for cube rollouts: the janowski method's "
                         "cubeless rollout is plain Monte Carlo (its error model reads the "
                         "outcome counts)")
    # plain Monte Carlo: the covariance of the probabilities is that of the counts
    res = rollout(pos, games, settings=RolloutSettings(seed=s.seed, policy=s.policy,
                                                       opening=False, vr=False), runner=runner)
    decision = None
    if res.games:
        decision = janowski_cube_decision(res, state, covariance=probability_covariance(
            res.counts), x=x_model, met=table)
        # (the cubeless rollout's counts, and so the probabilities, cannot vary either)
        decision["certain"] = decided_by_first_roll(pos.board, runner.engine)
        decision["too_close"] = (None if not decision["can_double"] else too_close(
            decision["margins"]["double"]["z"], decision["margins"]["take"]["z"], res.games,
            decision["certain"]))
    return CubeDecision(method="janowski", decision=decision, result=res, x=x_model,
                        x_source=x_source, **common)


def _by_evaluation(pos, state, table, ply, engine, x, x_source) -> CubeDecision:
    """``method="eval"``: Janowski's model on the n-ply probabilities, no sampling error."""
    t0 = time.perf_counter()
    ev = evaluate(pos, engine=engine, ply=ply)
    decision = janowski_cube_decision([ev[k] for k in PROBABILITY_KEYS], state, x=x,
                                      met=table)
    for key in ("stderr", "margins", "z"):      # an evaluation has no sampling error
        decision.pop(key, None)
    decision["ply"] = ply
    return CubeDecision(method="eval", position=pos, state=state, decision=decision, x=x,
                        x_source=x_source, met=table, engine=engine, ply=ply,
                        probabilities=ev, seconds=time.perf_counter() - t0)


def _by_rollout(pos, games, settings, runner, common) -> CubeDecision:
    """``method="rollout"``: :func:`~fastbg.rollouts.cuberollout.cube_rollout`."""
    res = cube_rollout(pos, games, settings=settings, runner=runner)
    x = settings.x
    if res.games == 0:
        return CubeDecision(method="rollout", decision=None, result=res, x=x, **common)
    exact = res.certain or _valued_exactly(res, pos)
    decision = res.to_dict()["decision"]
    decision["too_close"] = (None if res.why_not is not None
                             else too_close(res.z["double"], res.z["take"], res.games, exact))
    return CubeDecision(method="rollout", decision=decision, result=res, x=x,
                        valued_exactly=exact, **common)


def _valued_exactly(res: CubeRolloutResult, pos: Position) -> bool:
    """Whether a cube rollout of the race ``pos`` valued both lines exactly: with variance
    reduction, many trials (:data:`MIN_DECIDING_TRIALS`) whose luck-adjusted values were
    all the same. The luck is valued by the evaluator, so that happens only where its
    values are exact along every game (the bear-off databases, from the first roll on)
    and the play and the cube decisions lose nothing by them: the policy's play and the
    in-game cube decisions then bias nothing either (the 3/36 race, new-user trial)."""
    return (res.vr and pos.is_race and res.games >= MIN_DECIDING_TRIALS
            and res.why_not is None
            and res.stderr["nd"] == 0 and res.stderr["dt"] == 0)

