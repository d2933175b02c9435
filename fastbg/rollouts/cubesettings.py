"""What the numbers of a cubeful rollout and of a cube rollout depend on (issue 37).

The cube-in-play counterparts of :class:`fastbg.rollouts.settings.RolloutSettings`, with
the same contract (DESIGN section 1): a frozen, keyword-only object per kind of run,
validated once in ``__post_init__``, whose :meth:`~SettingsBase.as_dict` is plain JSON-ready
data and is, exactly, what the results store records as the run's request (beside
``position`` and ``games``) and the input of ``cls(**d)``, so that
:meth:`~SettingsBase.from_request` rebuilds a stored run (``fastbg.resume``).

- :class:`CubefulSettings`: :func:`fastbg.rollouts.cubeful.cubeful_rollout`;
- :class:`CubeRolloutSettings`: :func:`fastbg.rollouts.cuberollout.cube_rollout`;
- :class:`CubeDecisionSettings`: :func:`fastbg.rollouts.cubedecision.cube_decision`.

The cube and the rules are one field, ``state`` (a :class:`fastbg.MatchState`: cube, owner,
limit, match length and score, Crawford, Jacoby, beavers, Holland), recorded as the dict of
its fields; the Jacoby rule lives there and nowhere else (:func:`with_jacoby` folds the older
``jacoby=`` keyword into it). ``met`` is recorded as the name of a shipped table or the path
of a table file, what :func:`fastbg.cube.metfile.load_met` reads back.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..cube.met import DEFAULT_MET, MatchEquityTable
from ..cube.metfile import load_met
from ..game.matchstate import MatchState
from ..spec.nply import check_ply
from .blocks import check_policy
from .settings import (DEFAULT_POLICY, SettingsBase, check_flag, check_seed, check_stop_rule,
                       draw_seed, resolve_vr)

__all__ = ["CubefulSettings", "CubeRolloutSettings", "CubeDecisionSettings", "METHODS",
           "check_state", "check_x", "met_reference", "with_jacoby"]

#: The methods of :func:`fastbg.rollouts.cubedecision.cube_decision` (``fastbg cube --method``).
METHODS = ("auto", "exact", "janowski", "rollout", "eval")


def check_state(state, default=MatchState.money) -> MatchState | None:
    """``state`` checked: a :class:`MatchState`, the dict of its fields (a stored request's
    form), or None (``default()``; pass ``default=None`` to keep None)."""
    if state is None:
        return None if default is None else default()
    if isinstance(state, dict):
        return MatchState(**state)
    if not isinstance(state, MatchState):
        raise ValueError(f"state must be a fastbg.MatchState, got {type(state).__name__}")
    return state


def check_x(x) -> float | None:
    """A fixed cube efficiency ``x`` checked: None or a number in [0, 1] (as a float)."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(x) <= 1.0:
        raise ValueError(f"cube efficiency x must be in [0, 1] (a number, or None), got {x!r}")
    return float(x)


def met_reference(met):
    """What a settings object keeps of a match equity table: a name or path as given, or for
    a :class:`MatchEquityTable`, the shipped name or the file :func:`load_met` reads it from
    again (the table itself when it has neither: it cannot be recorded)."""
    if met is None or not isinstance(met, MatchEquityTable):
        if met is not None and not isinstance(met, str):
            raise ValueError(f"met must be a table's name or path, or a MatchEquityTable, got "
                             f"{met!r}")
        return met
    for ref in (met.name, met.source):
        if ref:
            try:
                again = load_met(str(ref))
            except (ValueError, OSError):
                continue
            if again is met or (np.array_equal(again.pre_crawford, met.pre_crawford)
                                and np.array_equal(again.post_crawford, met.post_crawford)):
                return str(ref)
    return met


def _state_dict(state: MatchState) -> dict:
    """A state as plain data, ``MatchState(**d) == state``."""
    return {f.name: (list(v) if isinstance(v, tuple) else v)
            for f in dataclasses.fields(state) for v in (getattr(state, f.name),)}


def with_jacoby(settings, jacoby):
    """``settings`` with the Jacoby rule of the older ``jacoby=`` keyword folded into its
    ``state`` (None or False: unchanged; True in match play: ValueError)."""
    if jacoby is None:
        return settings
    if not isinstance(jacoby, (bool, np.bool_)):
        raise ValueError(f"jacoby must be True or False, got {jacoby!r}")
    if not jacoby:
        return settings
    if not settings.state.is_money:
        raise ValueError("the Jacoby rule is for money play only")
    return settings.replace(state=dataclasses.replace(settings.state, jacoby=True))


@dataclass(frozen=True, kw_only=True)
class _CubeSettings(SettingsBase):
    """The settings every run with the cube in play shares (see the subclasses)."""

    seed: int | None = None
    policy: str = DEFAULT_POLICY
    state: MatchState | None = None
    x: float | None = None
    met: str | None = None
    vr: bool | None = None
    quasi_random: bool = True

    def __post_init__(self):
        put = object.__setattr__         # (frozen: normalised values set once, here)
        check_policy(self.policy)
        put(self, "seed", check_seed(self.seed))
        put(self, "state", check_state(self.state))
        put(self, "x", check_x(self.x))
        put(self, "met", met_reference(self.met))
        if self.vr is not None:
            put(self, "vr", resolve_vr(self.vr, self.policy))
        put(self, "quasi_random", check_flag("quasi_random", self.quasi_random))

    def as_dict(self) -> dict:
        """As :meth:`SettingsBase.as_dict`, with ``state`` as the dict of its fields."""
        d = super().as_dict()
        d["state"] = _state_dict(self.state)
        if isinstance(self.met, MatchEquityTable):
            d["met"] = self.met.name or None      # (not to be read back: see met_reference)
        return d

    def resolve(self, **choices):
        """The settings a run records, every open choice made: ``seed`` an int (fresh
        entropy if None), ``vr`` True or False, ``met`` the table's name or path in match
        play (None in money play, which has no table); ``choices`` more fields to set."""
        return self.replace(seed=draw_seed(self.seed), vr=resolve_vr(self.vr, self.policy),
                            met=None if self.state.is_money else (self.met or DEFAULT_MET),
                            **choices)


@dataclass(frozen=True, kw_only=True)
class CubefulSettings(_CubeSettings):
    """The settings of a cubeful rollout (:func:`fastbg.cubeful_rollout`): everything its
    numbers depend on besides the position and the number of games.

    Attributes
    ----------
    seed : int or None
        Root seed; None: fresh entropy drawn at the start of the run (and reported).
    policy : str
        Checker play of both sides.
    state : MatchState
        Cube, owner, cube limit, match length and score, Crawford, Jacoby, Holland (None or
        omitted: money play with a centred cube; a dict of its fields is read as one).
    x : float or None
        Fixed cube efficiency in [0, 1] of every cube decision; None: each position's own.
    met : str or None
        Match play: the match equity table's name or file (None: the default table).
    vr : bool or None
        Variance reduction; None: the policy's default.
    quasi_random : bool
        Stratified first two rolls.
    opening : bool or None
        Start with the opening roll; None: the position decides (the start with a centred
        cube).
    until_se, min_games : float or None, int or None
        Stop rule.
    by_first_roll : bool
        Break the results down by first roll (needs ``quasi_random``).

    Examples
    --------
    >>> s = CubefulSettings(seed=7, state=MatchState.money(jacoby=True))
    >>> CubefulSettings(**s.as_dict()) == s
    True
    >>> s.as_dict()["state"]["jacoby"]
    True
    """

    opening: bool | None = None
    until_se: float | None = None
    min_games: int | None = None
    by_first_roll: bool = False

    def __post_init__(self):
        super().__post_init__()
        if self.opening is not None:
            object.__setattr__(self, "opening", check_flag("opening", self.opening))
        object.__setattr__(self, "by_first_roll", check_flag("by_first_roll", self.by_first_roll))
        if self.by_first_roll and not self.quasi_random:
            raise ValueError("a breakdown by first roll needs quasi-random dice (the first roll "
                             "of each game is then known): leave them on")
        object.__setattr__(self, "min_games", check_stop_rule(self.until_se, self.min_games))

    def check_games(self, games: int) -> None:
        """The checks that need the run's ``games`` too: ``min_games`` at most ``games``."""
        check_stop_rule(self.until_se, self.min_games, games)

    def resolve(self, at_start: bool) -> "CubefulSettings":
        """The settings a run records (:meth:`_CubeSettings.resolve`), with ``opening``
        True or False: by default, from the starting position (``at_start``) with a centred
        cube (an owned cube means the game is under way)."""
        opening = self.opening
        if opening is None:
            opening = bool(at_start) and self.state.cube_owner == "centred"
        return super().resolve(opening=opening)


@dataclass(frozen=True, kw_only=True)
class CubeRolloutSettings(_CubeSettings):
    """The settings of a cube rollout (:func:`fastbg.cube_rollout`): No double and
    Double/take rolled out with the same dice.

    Attributes
    ----------
    seed, policy, state, x, met, vr, quasi_random
        As :class:`CubefulSettings` (``x``: the cube efficiency of the decisions *inside*
        the games).

    Examples
    --------
    >>> s = CubeRolloutSettings(seed=1, policy="pubeval", state=MatchState.match(7, (2, 4)))
    >>> CubeRolloutSettings.from_request({"position": "start", "games": 9, **s.as_dict()}) == s
    True
    """


@dataclass(frozen=True, kw_only=True)
class CubeDecisionSettings(_CubeSettings):
    """The settings of :func:`fastbg.cube_decision` (``fastbg cube``): a method and the
    settings of the rollout behind it.

    Attributes
    ----------
    method : {"auto", "exact", "janowski", "rollout", "eval"}
        How the decision is valued (:data:`fastbg.rollouts.cubedecision.METHODS`).
    ply : int
        ``"eval"``: the ply of the evaluation, 0 to 3 (GNU Backgammon's plies,
        :mod:`fastbg.spec.nply`); the other methods take only 0 (their default).
    state : MatchState or None
        None: the state the position's text carries (an XGID, a GNU ID pair), else money
        play with a centred cube.
    quasi_random : bool or None
        None: on for a cube rollout (``"janowski"`` refuses it True).
    seed, policy, x, met, vr
        As :class:`CubeRolloutSettings`; unused by ``"exact"``.
    """

    method: str = "auto"
    quasi_random: bool | None = None
    ply: int = 0

    def __post_init__(self):
        put = object.__setattr__
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}: one of {', '.join(METHODS)}")
        put(self, "ply", check_ply(self.ply))
        if self.ply and self.method != "eval":
            raise ValueError(f"ply {self.ply} is for method 'eval' (an n-ply evaluation); "
                             f"method {self.method!r} takes none")
        state, qr = check_state(self.state, default=None), self.quasi_random
        put(self, "state", MatchState.money() if state is None else state)
        put(self, "quasi_random", True if qr is None else qr)
        super().__post_init__()
        put(self, "state", state)              # (None: the position's own, kept open)
        if qr is None:
            put(self, "quasi_random", None)

    def as_dict(self) -> dict:
        """As :meth:`SettingsBase.as_dict`, ``state`` the dict of its fields or None."""
        d = SettingsBase.as_dict(self)
        if self.state is not None:
            d["state"] = _state_dict(self.state)
        if isinstance(self.met, MatchEquityTable):
            d["met"] = self.met.name or None
        return d
