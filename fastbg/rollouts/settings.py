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
from .blocks import check_games, check_policy

__all__ = ["POLICY_PLY", "policy_checksum", "rollout_settings", "YARDSTICK", "DEFAULT_POLICY",
           "DEFAULT_VR", "RolloutSettings", "check_seed", "draw_seed", "check_flag",
           "resolve_vr", "check_truncate", "check_stop_rule", "check_opening", "SettingsBase"]

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
                     truncation: int | None = None, **extra) -> dict:
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
    **extra
        More settings of the kind of rollout (cube state, ...), added as given.

    Returns
    -------
    dict
        ``policy``, ``policy_sha256``, ``ply``, ``vr``, ``yardstick`` (and its
        ``yardstick_sha256``) when ``vr``, ``dice``, ``first_roll``, ``truncation``, ``seed``,
        ``games``, ``block_size``, ``engine``, ``fastbg_version``, then ``extra``.
    """
    d = {"policy": policy, "policy_sha256": policy_checksum(policy),
         "ply": POLICY_PLY.get(policy, 0), "vr": bool(vr)}
    if vr:
        d["yardstick"] = (f"{YARDSTICK} 0-ply" + (f" on pubeval's {vr_prefilter} best plays"
                                                  if vr_prefilter else ""))
        d["yardstick_sha256"] = policy_checksum(YARDSTICK)
    d.update(dice=dice_method,
             first_roll=list(first_roll) if isinstance(first_roll, tuple) else first_roll,
             truncation=truncation, seed=seed, games=games, block_size=block_size,
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
        return self.replace(seed=draw_seed(self.seed), dice=dice, opening=opening,
                            vr=resolve_vr(self.vr, self.policy))
