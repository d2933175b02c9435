"""What a rollout's numbers depend on: its settings, checked once, and the record every
result carries (DESIGN sections 1 and 5).

Same fastbg version + same settings (seed included) = same numbers, so a result that
records them can be reproduced, compared and extended.

Design
------
A kind of run has one frozen settings class (:class:`RolloutSettings` for
:func:`fastbg.rollout`): every option that can change the numbers, validated once in
``__post_init__`` with the error a caller sees, and nothing about where or how the games are
played (threads, Dask, the results store, progress, Ctrl-C: that is
:class:`fastbg.rollouts.runner.Runner`). Its :meth:`~RolloutSettings.as_dict` is plain
JSON-ready data and is, exactly, three things at once:

- what the results store records as the run's request (with ``position`` and ``games``),
  so a stored run is rebuilt by :meth:`RolloutSettings.from_request` (``fastbg.resume``);
- what a block of games receives in its :class:`~fastbg.rollouts.blocks.BlockRecipe`
  (the recipe's factory rebuilds the object from it, in any process);
- the input of ``cls(**d)``: ``RolloutSettings(**s.as_dict()) == s`` for any ``s``.

A settings object may leave choices open (``seed=None``: fresh entropy; ``vr=None`` and
``opening=None``: the policy's and the position's default); a run first resolves them
(:meth:`RolloutSettings.resolve`) and records the resolved object, so what is stored
replays the run. :func:`rollout_settings` is the longer, descriptive record the results
carry under ``settings`` (checksums, block size, version), derived from it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._version import __version__
from ..formats.dice import parse_dice
from ..nn import network_info
from ..spec.nply import PRESETS as FILTER_PRESETS
from ..spec.nply import MoveFilter, check_ply, move_filter
from ..spec.policies import check_rollout_ply
from .blocks import check_games, check_policy
from .presets import rollout_preset

__all__ = ["POLICY_PLY", "policy_checksum", "rollout_settings", "YARDSTICK", "DEFAULT_POLICY",
           "DEFAULT_VR", "RolloutSettings", "check_seed", "draw_seed", "check_flag",
           "resolve_vr", "check_truncate", "check_stop_rule", "check_opening", "SettingsBase",
           "check_move_filter", "filter_record", "NPLY_FIELDS"]

#: The policy of a rollout unless one is named: the shipped evaluator (contact and race nets,
#: fastbg/data/nn/nn2.json), the strongest 0-ply player, so its rollouts are the least biased.
DEFAULT_POLICY = "nn"

#: Variance reduction unless asked otherwise, by policy: chosen by the measured accuracy
#: per CPU second (experiments/bench_vr.py, results/bench_vr.json): with the nn policies it
#: gives the same standard error in about 3x less time in contact and 50x in races; with
#: pubeval and random, whose plays cost far less than the yardstick's, it costs more time
#: than it saves.
DEFAULT_VR = {"nn": True, "nn-1ply": True, "nn1": True, "pubeval": False, "random": False}

#: Look-ahead of each policy's checker play, in plies.
POLICY_PLY = {"nn": 0, "nn-1ply": 1, "nn1": 0, "pubeval": 0, "random": 0}

#: The evaluator that values every roll for variance reduction, whatever the policy.
YARDSTICK = "nn"


def policy_checksum(policy: str) -> str | None:
    """SHA-256 of the network file a policy plays by (``None`` for pubeval and random,
    whose weights are part of the code)."""
    if policy in ("nn", "nn-1ply"):
        return network_info("nn")["sha256"]
    if policy == "nn1":
        return network_info("nn1")["sha256"]
    return None


def rollout_settings(*, policy: str, seed: int, games: int, block_size: int, vr: bool,
                     first_roll, engine: str, vr_prefilter: int | None = None,
                     dice_method: str = "pseudo-random",
                     truncation: int | None = None, ply: int = 0, move_filter=None,
                     luck_ply: int = 0, truncate_ply: int = 0, **extra) -> dict:
    """The settings of a rollout as a JSON-ready dict.

    Parameters
    ----------
    policy : str
        The checker-play policy of both sides.
    seed : int
        The root seed actually used.
    games : int
        Games asked for.
    block_size : int
        Games per block (part of the reproducibility contract).
    vr : bool
        Variance reduction (luck adjustment by :data:`YARDSTICK` at 0 ply).
    vr_prefilter : int, optional
        With ``vr``: the yardstick's best play of a roll is taken among the pubeval's best
        ``vr_prefilter`` plays (0: among all).
    first_roll : str or tuple
        ``"opening"`` (the opening roll), ``"rolled"`` (an ordinary roll, doubles
        included) or the fixed first roll ``(d1, d2)``.
    engine : str
        ``"cython"`` or ``"python"`` (same numbers; recorded for the record).
    dice_method : str
        How the dice are drawn.
    truncation : int, optional
        Half-moves after which a game is scored by the evaluator (``None``: played out).
    ply : int, default 0
        The checker play's ply (0: the policy's own depth, :data:`POLICY_PLY`; n >= 1:
        the ``nn`` evaluator's n-ply ranking through ``move_filter``).
    move_filter : str or dict, optional
        The move filter of the n-ply rankings (a preset name or a filter's dict form).
    luck_ply : int, default 0
        The ply at which the yardstick values the rolls for variance reduction.
    truncate_ply : int, default 0
        The ply at which a truncated game is scored.
    **extra
        More settings of the kind of rollout (cube state, ...), added as given.

    Returns
    -------
    dict
        ``policy``, ``policy_sha256``, ``ply``, ``move_filter`` (its levels, with n-ply
        play or luck), ``vr``, ``yardstick`` (and its ``yardstick_sha256``) when ``vr``,
        ``luck_ply`` (when not 0), ``dice``, ``first_roll``, ``truncation``,
        ``truncate_ply`` (when not 0), ``seed``, ``games``, ``block_size``, ``engine``,
        ``fastbg_version``, then ``extra``. A 0-ply run's record has exactly the keys it
        had before n-ply rollouts (so stored runs resume).
    """
    d = {"policy": policy, "policy_sha256": policy_checksum(policy),
         "ply": ply or POLICY_PLY.get(policy, 0)}
    if ply or luck_ply:
        d["move_filter"] = filter_record(move_filter)
    d["vr"] = bool(vr)
    if vr:
        if luck_ply:
            d["yardstick"] = f"{YARDSTICK} {luck_ply}-ply (each roll's best play at {luck_ply} ply)"
        else:
            d["yardstick"] = (f"{YARDSTICK} 0-ply" + (f" on pubeval's {vr_prefilter} best plays"
                                                      if vr_prefilter else ""))
        d["yardstick_sha256"] = policy_checksum(YARDSTICK)
        if luck_ply:
            d["luck_ply"] = luck_ply
    d.update(dice=dice_method,
             first_roll=list(first_roll) if isinstance(first_roll, tuple) else first_roll,
             truncation=truncation)
    if truncate_ply:
        d["truncate_ply"] = truncate_ply
    d.update(seed=seed, games=games, block_size=block_size,
             engine=engine, fastbg_version=__version__)
    d.update(extra)
    return d


# ------------------------------------------------------------------------- validators
# One check per option, shared by every kind of run, each raising the ValueError a caller
# of fastbg.rollout() has always seen.

def check_seed(seed) -> int | None:
    """``seed`` checked: None (fresh entropy at run time, :func:`draw_seed`) or a
    non-negative int; ValueError otherwise."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def draw_seed(seed) -> int:
    """The root seed of a run: ``seed`` checked (:func:`check_seed`), or fresh entropy from
    ``numpy.random.SeedSequence`` for None (reported in the result, so the run replays)."""
    seed = check_seed(seed)
    return int(np.random.SeedSequence().entropy) if seed is None else seed


def check_flag(name: str, value) -> bool:
    """A True/False option, checked."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_opening(opening) -> bool | None:
    """``opening`` checked: True, False or None (the position's default)."""
    if opening is None:
        return None
    if not isinstance(opening, (bool, np.bool_)):
        raise ValueError(f"opening must be True, False or None, got {opening!r}")
    return bool(opening)


def resolve_vr(vr, policy: str) -> bool:
    """``vr`` checked, ``None`` meaning the policy's default (:data:`DEFAULT_VR`)."""
    if vr is None:
        return DEFAULT_VR[policy]
    if not isinstance(vr, (bool, np.bool_)):
        raise ValueError(f"vr must be True, False or None, got {vr!r}")
    return bool(vr)


def check_truncate(truncate) -> int:
    """``truncate`` as an int >= 0 (0 for ``None``: no truncation), or ValueError."""
    if truncate is None:
        return 0
    if isinstance(truncate, (bool, np.bool_)) or not isinstance(truncate, (int, np.integer)) \
            or truncate < 1:
        raise ValueError(f"truncate must be a number of half-moves >= 1 (or None), got {truncate!r}")
    return int(truncate)


def check_move_filter(f):
    """A rollout's ``move_filter`` as its settings keep it: None, a preset name of
    :data:`fastbg.spec.nply.PRESETS` (also for a filter equal to one), or a filter's dict
    form (:meth:`fastbg.spec.nply.MoveFilter.as_dict`); ValueError for a malformed one."""
    if f is None:
        return None
    mf = move_filter(f)
    for name, preset in FILTER_PRESETS.items():
        if mf == preset:
            return name
    return mf.as_dict()


def filter_record(f) -> dict:
    """The record of a move filter (``--json``'s ``settings``): its preset name (if any)
    and its levels."""
    mf = move_filter(f)
    name = next((n for n, p in FILTER_PRESETS.items() if p == mf), None)
    return {"name": name, **mf.as_dict()}


def check_stop_rule(until_se, min_games, games: int | None = None) -> int | None:
    """Check the stop rule ``until_se`` / ``min_games`` of a run of at most ``games`` games
    (None: the games are not known yet; :meth:`RolloutSettings.check_games` checks them
    later): ValueError for a bad one; returns ``min_games`` as an int (or None)."""
    if until_se is None:
        if min_games is not None:
            raise ValueError("min_games is for a stop rule: give until_se too")
        return None
    if isinstance(until_se, bool) or not isinstance(until_se, (int, float, np.floating)) \
            or not 0 < until_se < float("inf"):
        raise ValueError(f"until_se must be a positive, finite standard error, got {until_se!r}")
    if min_games is not None:
        min_games = check_games(min_games)
        if games is not None and min_games > games:
            raise ValueError(f"min_games ({min_games:,}) is more than the games asked for ({games:,}), "
                             "the most the run may play")
    return min_games


# ------------------------------------------------------------------------- settings objects

#: The n-ply settings of :class:`RolloutSettings` (left out of its dict form while at their
#: defaults).
NPLY_FIELDS = ("ply", "move_filter", "luck_ply", "truncate_ply")


def _check_field_ply(name: str, ply) -> int:
    """``ply`` checked (0..3) with the setting's name in the error."""
    try:
        return check_ply(ply)
    except ValueError:
        raise ValueError(f"{name} must be 0, 1, 2 or 3, got {ply!r}") from None


def _plain(v):
    """A setting as JSON-ready data: tuples (nested too) as lists."""
    return [_plain(x) for x in v] if isinstance(v, (tuple, list)) else v


class SettingsBase:
    """What every settings class shares: :meth:`as_dict`, :meth:`from_request`,
    :meth:`replace` and :meth:`fields` (the classes are frozen dataclasses).

    ``run_arguments`` (a class attribute, not a setting) names the keys of a stored request
    that are the run function's own arguments, not settings (``position`` and ``games``).
    """

    run_arguments = ("position", "games")

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The names of the settings, in the order :meth:`as_dict` gives them."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def as_dict(self) -> dict:
        """The settings as plain JSON-ready values (a tuple as a list), in field order:
        what the results store records (beside ``position`` and ``games``) and a block
        recipe receives; ``type(self)(**self.as_dict()) == self``."""
        return {f: _plain(getattr(self, f)) for f in self.fields()}

    def replace(self, **changes):
        """A copy with ``changes``, validated again (:func:`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_request(cls, request: dict):
        """The settings of a stored run from its request (a :class:`~fastbg.rollouts.store.
        StoredRun`'s ``request``): every key but the run's own arguments
        (``run_arguments``: ``position`` and ``games``). A request of an older fastbg that
        lacks a setting takes its default; an unknown key is a ValueError."""
        d = {k: v for k, v in request.items() if k not in cls.run_arguments}
        unknown = sorted(set(d) - set(cls.fields()))
        if unknown:
            raise ValueError(f"the stored request has settings {cls.__name__} does not know: "
                             f"{', '.join(unknown)} (a run of another fastbg?)")
        return cls(**d)


@dataclass(frozen=True, kw_only=True)
class RolloutSettings(SettingsBase):
    """The settings of a cubeless rollout (:func:`fastbg.rollout`): everything its numbers
    depend on besides the position and the number of games.

    Frozen and validated when made (ValueError naming the first bad setting), so a bad
    option fails before any game, store or cluster is touched. See :func:`fastbg.rollout`
    for what each setting does; the defaults are its defaults.

    Attributes
    ----------
    seed : int or None
        Root seed; None: fresh entropy drawn at the start of the run (and reported).
    policy : str
        Checker play of both sides (:data:`fastbg.rollouts.cubeless.POLICIES`).
    dice : tuple of int or None
        A fixed first roll (given as ``"31"``, ``(3, 1)`` or ``[3, 1]``; kept as a tuple).
    opening : bool or None
        Begin with the opening roll; None: the position decides (the start, no dice).
    vr : bool or None
        Variance reduction; None: the policy's default (:data:`DEFAULT_VR`).
    quasi_random : bool
        Stratified first two rolls.
    until_se, min_games : float or None, int or None
        Stop rule.
    by_first_roll : bool
        Break the results down by first roll (needs ``quasi_random`` and no fixed dice).
    truncate : int or None
        Half-moves after which a game is scored by the evaluator (None: played out).
    truncate_bearoff : bool
        Score a game exactly when it reaches the two-sided bear-off database.
    ply : int
        Checker play at this ply (0..3): 0, the ``policy`` as it plays; n >= 1, the ``nn``
        evaluator's n-ply ranking through ``move_filter`` (GNU Backgammon's plies,
        :mod:`fastbg.spec.nply`; ``policy`` must be ``"nn"``).
    move_filter : str or dict or None
        The move filter of the n-ply rankings (checker play and luck): a preset name
        (``"normal"``, ``"large"``, ``"all"``), a :class:`~fastbg.spec.nply.MoveFilter` or
        its dict form (kept as a preset's name when it equals one, else as the dict).
        None: ``"normal"`` once ``ply`` or ``luck_ply`` is above 0; it must be None when
        both are 0 (it would change nothing).
    luck_ply : int
        The ply (0..3) at which variance reduction values each roll: the yardstick's value
        after the roll's best play (at ``luck_ply`` through ``move_filter``) minus its mean
        over the 21 rolls. 0 (default): the evaluator at 0 ply, the cheap yardstick; the
        estimate is unbiased with any yardstick (the luck of each roll has mean zero given
        the game so far), a deeper one only removes more of the noise, at about 21 n-ply
        rankings a half-move. Needs variance reduction (``vr`` not False).
    truncate_ply : int
        The ply (0..3) at which a truncated game is scored (``truncate`` needed):
        :func:`fastbg.evaluate` at that ply of the position before the next roll.

    Examples
    --------
    >>> s = RolloutSettings(seed=7, policy="pubeval", until_se=0.01)
    >>> RolloutSettings(**s.as_dict()) == s
    True
    >>> s.replace(policy="gnubg")
    Traceback (most recent call last):
    ...
    ValueError: unknown policy 'gnubg': choose one of pubeval, random, nn, nn-1ply, nn1
    """

    seed: int | None = None
    policy: str = DEFAULT_POLICY
    dice: tuple[int, int] | None = None
    opening: bool | None = None
    vr: bool | None = None
    quasi_random: bool = True
    until_se: float | None = None
    min_games: int | None = None
    by_first_roll: bool = False
    truncate: int | None = None
    truncate_bearoff: bool = False
    ply: int = 0
    move_filter: str | dict | None = None
    luck_ply: int = 0
    truncate_ply: int = 0

    def __post_init__(self):
        put = object.__setattr__         # (frozen: normalised values set once, here)
        check_policy(self.policy)
        put(self, "dice", None if self.dice is None else parse_dice(self.dice))
        put(self, "seed", check_seed(self.seed))
        put(self, "opening", check_opening(self.opening))
        if self.opening and self.dice is not None:
            raise ValueError("choose either a fixed first roll (dice) or the opening roll, not both")
        if self.vr is not None:
            put(self, "vr", resolve_vr(self.vr, self.policy))
        put(self, "truncate", check_truncate(self.truncate) or None)
        put(self, "truncate_bearoff", check_flag("truncate_bearoff", self.truncate_bearoff))
        put(self, "quasi_random", check_flag("quasi_random", self.quasi_random))
        put(self, "by_first_roll", check_flag("by_first_roll", self.by_first_roll))
        if self.by_first_roll:
            if not self.quasi_random:
                raise ValueError("a breakdown by first roll needs quasi-random dice (the first "
                                 "roll of each game is then known): leave them on")
            if self.dice is not None:
                raise ValueError("a breakdown by first roll: the first roll is fixed (dice), "
                                 "there is nothing to break down")
        put(self, "min_games", check_stop_rule(self.until_se, self.min_games))
        put(self, "ply", check_rollout_ply(self.policy, self.ply))
        put(self, "luck_ply", _check_field_ply("luck_ply", self.luck_ply))
        put(self, "truncate_ply", _check_field_ply("truncate_ply", self.truncate_ply))
        if self.truncate_ply and not self.truncate:
            raise ValueError("truncate_ply is the ply at which a truncated game is scored: "
                             "give truncate (half-moves) too")
        if self.luck_ply and self.vr is False:
            raise ValueError("luck_ply is the ply of variance reduction's yardstick: it needs "
                             "vr (True, or None for the policy's default)")
        mf = check_move_filter(self.move_filter)
        if self.ply or self.luck_ply:
            put(self, "move_filter", "normal" if mf is None else mf)
        elif mf is not None:
            raise ValueError("move_filter chooses the plays of n-ply rankings: give ply (or "
                             "luck_ply) 1 or more, or leave it out")
        else:
            put(self, "move_filter", None)

    def as_dict(self) -> dict:
        """:meth:`SettingsBase.as_dict`, without the n-ply settings while they are at
        their defaults (0 ply, no filter): a 0-ply run's request is the one fastbg stored
        before n-ply rollouts, so such runs resume and compare as ever
        (``type(self)(**self.as_dict()) == self`` holds all the same)."""
        d = super().as_dict()
        if not (self.ply or self.luck_ply or self.truncate_ply):
            for k in NPLY_FIELDS:
                del d[k]
        return d

    @classmethod
    def preset(cls, name: str, **changes) -> "RolloutSettings":
        """The settings of preset ``name`` (:mod:`fastbg.rollouts.presets`) with ``changes``
        (fields) on top; its number of games is ``rollout_preset(name).games``.

        Examples
        --------
        >>> RolloutSettings.preset("2ply-truncated", seed=1).truncate
        7
        """
        return cls(**(rollout_preset(name).settings | changes))

    @property
    def depth(self) -> int:
        """The deepest evaluation of a decision in the run's games, in plies: the checker
        play's or the luck's (what :func:`fastbg.rollouts.blocks.block_size_for` reads)."""
        return max(self.ply, self.luck_ply)

    def checker_filter(self) -> MoveFilter | None:
        """The :class:`~fastbg.spec.nply.MoveFilter` of the run's n-ply rankings (None for
        a 0-ply run)."""
        return None if self.move_filter is None else move_filter(self.move_filter)

    def check_games(self, games: int) -> None:
        """The checks that need the run's ``games`` too: ``min_games`` at most ``games``."""
        check_stop_rule(self.until_se, self.min_games, games)

    @property
    def scored(self) -> bool:
        """Whether the games' results come as float sums (luck-adjusted, or scored by the
        evaluator where a game stops early) rather than outcome counts alone."""
        return bool(self.vr) or bool(self.truncate) or self.truncate_bearoff

    def resolve(self, at_start: bool, rolled=None) -> "RolloutSettings":
        """The settings a run records, with every open choice made.

        Parameters
        ----------
        at_start : bool
            The position is the starting position (for the default of ``opening``).
        rolled : tuple of int, optional
            The roll the position holds (an XGID with dice): the first roll, unless
            ``dice`` gives another (ValueError) or the same.

        Returns
        -------
        RolloutSettings
            With ``seed`` an int (fresh entropy if it was None), ``dice`` the roll,
            ``opening`` and ``vr`` True or False.
        """
        dice = self.dice
        if rolled is not None:
            if dice is None:
                dice = rolled
            elif sorted(dice) != sorted(rolled):
                raise ValueError(f"the position has {rolled[0]}-{rolled[1]} rolled but dice is "
                                 f"{dice[0]}-{dice[1]}: give one roll (or the same)")
        opening = self.opening
        if opening is None:
            opening = dice is None and bool(at_start)
        vr = resolve_vr(self.vr, self.policy)
        if self.luck_ply and not vr:
            raise ValueError(f"luck_ply is the ply of variance reduction's yardstick, and "
                             f"policy {self.policy!r} plays without it by default: give vr=True")
        return self.replace(seed=draw_seed(self.seed), dice=dice, opening=opening, vr=vr)
