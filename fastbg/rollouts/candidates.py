"""Which plays a rollout of candidate plays compares, and its settings.

:class:`PlaysSettings` holds everything the numbers of :func:`fastbg.rollout_plays` depend on
besides the position, the roll and the games (DESIGN section 1): which candidates (the plays
within ``within`` equity of the best at ``ply``, at most ``max_plays`` and at least
``min_plays``; or the ``top`` best; or ``plays`` named), the policy, variance reduction,
quasi-random dice, pruning and the seed. :func:`choose_candidates` applies the choice to the
plays ranked by :func:`fastbg.rollouts.plays.rank_plays`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game.plays import find_play
from ..spec.nply import move_filter
from ..spec.policies import check_rollout_ply
from .blocks import check_games, check_policy
from .settings import (DEFAULT_POLICY, SettingsBase, check_flag, check_move_filter, check_seed, draw_seed,
                       resolve_vr)

__all__ = ["PlaysSettings", "DEFAULT_WITHIN", "DEFAULT_MAX_PLAYS", "MIN_PLAYS",
           "choose_candidates", "within_count", "candidates_text"]

#: Candidates by default: the plays within this much equity of the best at 0 ply ...
DEFAULT_WITHIN = 0.10
#: ... and at most this many.
DEFAULT_MAX_PLAYS = 8
#: ... and at least this many (the best ones), when there are as many plays and
#: ``max_plays`` allows: a rollout of one play alone cannot say which play is best.
MIN_PLAYS = 2


def _check_count(name: str, value) -> int | None:
    """A count of plays (``top``, ``max_plays``, ``min_plays``): None or an int >= 1."""
    if value is not None and (isinstance(value, bool)
                              or not isinstance(value, (int, np.integer)) or value < 1):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return None if value is None else int(value)


def _check_pruning(prune_se, min_games) -> int | None:
    """``prune_se`` and ``min_games`` checked (``min_games`` against the games later:
    :meth:`PlaysSettings.check_games`); returns ``min_games`` as an int (or None)."""
    if prune_se is None:
        if min_games is not None:
            raise ValueError("min_games is for pruning: give prune_se too")
        return None
    if isinstance(prune_se, bool) or not isinstance(prune_se, (int, float, np.floating)) \
            or not 0 < prune_se < float("inf"):
        raise ValueError(f"prune_se must be a positive, finite number of standard errors, "
                         f"got {prune_se!r}")
    return None if min_games is None else check_games(min_games)


@dataclass(frozen=True, kw_only=True)
class PlaysSettings(SettingsBase):
    """The settings of a rollout of candidate plays (:func:`fastbg.rollout_plays`):
    everything its numbers depend on besides the position, the roll and the games.

    Frozen and validated when made (ValueError naming the first bad setting). Its
    :meth:`~fastbg.rollouts.settings.SettingsBase.as_dict` is what the results store records
    beside ``position``, ``dice`` and ``games`` (the run's own arguments) and what the blocks
    receive.

    Attributes
    ----------
    seed : int or None
        Root seed; None: fresh entropy drawn at the start of the run (and reported).
    policy : str
        Checker play of both sides after the candidate play.
    top : int or None
        The ``top`` best plays at ``ply`` instead of the default choice.
    plays : tuple of str or None
        These plays (notation) instead (given as a list; kept as a tuple).
    ply : {0, 1}
        The evaluation that ranks the candidates.
    within, max_plays : float, int
        Default candidates: the plays within ``within`` equity of the best, at most
        ``max_plays`` ...
    vr : bool or None
        Variance reduction; None: the policy's default.
    quasi_random : bool
        Quasi-random dice.
    prune_se, min_games : float or None, int or None
        Pruning: after ``min_games`` and every :data:`fastbg.rollouts.plays.PRUNE_STAGE`
        blocks, drop the plays more than ``prune_se`` paired standard errors behind the best.
    min_plays : int or None
        ... and at least the ``min_plays`` best ones; None: :data:`MIN_PLAYS` (2). (None
        rather than 2 as the default: a stored request of a fastbg that did not record it
        reads as the default.)
    checker_ply : int
        The checker play of the games after each candidate, at this ply (0..3): 0, the
        ``policy`` as it plays; n >= 1, the ``nn`` evaluator's n-ply ranking through
        ``move_filter`` (``policy`` must be ``"nn"``; as ``RolloutSettings.ply``, which
        this is, named apart from ``ply``, the ranking of the candidates).
    move_filter : str or dict or None
        The move filter of that n-ply checker play (as ``RolloutSettings.move_filter``:
        ``"normal"`` once ``checker_ply`` is 1 or more, None at 0 ply).

    Examples
    --------
    >>> s = PlaysSettings(seed=1, policy="pubeval", top=3)
    >>> PlaysSettings(**s.as_dict()) == s
    True
    >>> PlaysSettings(ply=2)
    Traceback (most recent call last):
    ...
    ValueError: ply must be 0 or 1, got 2
    """

    run_arguments = ("position", "dice", "games")

    seed: int | None = None
    policy: str = DEFAULT_POLICY
    top: int | None = None
    plays: tuple[str, ...] | None = None
    ply: int = 0
    within: float = DEFAULT_WITHIN
    max_plays: int = DEFAULT_MAX_PLAYS
    vr: bool | None = None
    quasi_random: bool = True
    prune_se: float | None = None
    min_games: int | None = None
    min_plays: int | None = None
    checker_ply: int = 0
    move_filter: str | dict | None = None

    def __post_init__(self):
        put = object.__setattr__         # (frozen: normalised values set once, here)
        check_policy(self.policy)
        if self.vr is not None:
            put(self, "vr", resolve_vr(self.vr, self.policy))
        put(self, "quasi_random", check_flag("quasi_random", self.quasi_random))
        if self.ply not in (0, 1):
            raise ValueError(f"ply must be 0 or 1, got {self.ply!r}")
        for name in ("top", "max_plays", "min_plays"):
            put(self, name, _check_count(name, getattr(self, name)))
        if self.max_plays is None:
            raise ValueError("max_plays must be a positive integer, got None")
        if isinstance(self.within, bool) or not isinstance(self.within, (int, float, np.floating)) \
                or not self.within >= 0:
            raise ValueError(f"within must be a non-negative equity, got {self.within!r}")
        put(self, "min_games", _check_pruning(self.prune_se, self.min_games))
        put(self, "seed", check_seed(self.seed))
        if self.plays is not None:
            if isinstance(self.plays, str) or not all(isinstance(p, str) for p in self.plays):
                raise ValueError(f"plays must be a list of plays in notation, got {self.plays!r}")
            put(self, "plays", tuple(self.plays))
        put(self, "checker_ply", check_rollout_ply(self.policy, self.checker_ply))
        mf = check_move_filter(self.move_filter)
        if self.checker_ply:
            put(self, "move_filter", "normal" if mf is None else mf)
        elif mf is not None:
            raise ValueError("move_filter chooses the plays of the n-ply checker play: give "
                             "checker_ply 1 or more, or leave it out")

    def as_dict(self) -> dict:
        """:meth:`SettingsBase.as_dict`, without ``checker_ply`` and ``move_filter`` at 0 ply
        (a 0-ply run's request is the one stored before them, so such runs resume)."""
        d = super().as_dict()
        if not self.checker_ply:
            del d["checker_ply"], d["move_filter"]
        return d

    def checker_filter(self):
        """The :class:`~fastbg.spec.nply.MoveFilter` of the n-ply checker play (None at 0
        ply)."""
        return None if self.move_filter is None else move_filter(self.move_filter)

    def check_games(self, games: int) -> None:
        """The check that needs the run's ``games`` too: ``min_games`` at most ``games``."""
        if self.min_games is not None and self.min_games > games:
            raise ValueError(f"min_games ({self.min_games:,}) is more than the games asked for "
                             f"({games:,})")

    def resolve(self) -> "PlaysSettings":
        """The settings a run records: ``seed`` an int (fresh entropy if it was None) and
        ``vr`` True or False."""
        return self.replace(seed=draw_seed(self.seed), vr=resolve_vr(self.vr, self.policy))

    @property
    def least(self) -> int:
        """The fewest candidates of the default choice (``min_plays``, or :data:`MIN_PLAYS`)."""
        return MIN_PLAYS if self.min_plays is None else self.min_plays


def within_count(ranked, within: float) -> int:
    """How many of the ranked plays (best first) are within ``within`` equity of the best."""
    return sum(r.equity >= ranked[0].equity - within for r in ranked)


def choose_candidates(ranked, st: PlaysSettings, position, dice, engine: str) -> list:
    """The candidates of a rollout of plays, from the plays ranked best first.

    Parameters
    ----------
    ranked : list of RankedPlay
        Every legal play, best first (:func:`fastbg.rollouts.plays.rank_plays`).
    st : PlaysSettings
    position : Position
    dice : tuple of int
    engine : str
        For reading ``st.plays`` (:func:`fastbg.game.plays.find_play`).

    Returns
    -------
    list of RankedPlay
        ``st.plays`` in their order; or the ``st.top`` best; or the plays within
        ``st.within`` of the best, at least the ``min_plays`` best and at most ``max_plays``.

    Raises
    ------
    ValueError
        A play that is not legal, or one given twice.
    """
    if st.plays:
        chosen, seen = [], {}
        by_board = {r.board.tobytes(): r for r in ranked}
        for text in st.plays:
            p = find_play(position, dice, text, engine=engine)
            key = p.board.tobytes()
            if key in seen:
                raise ValueError(f"the play {text!r} is given twice (the same position as "
                                 f"{seen[key]!r}): give each candidate once")
            seen[key] = text
            chosen.append(by_board[key])
        return chosen
    if st.top is not None:
        return ranked[:st.top]
    # (ranked best first: the plays within the window are its first ones)
    return ranked[:min(max(within_count(ranked, st.within), st.least), st.max_plays)]


def candidates_text(st: PlaysSettings, ranked, chosen: int) -> str:
    """How the candidates were chosen, as the results' settings say it (``candidates``)."""
    if st.plays:
        return "given"
    if st.top is not None:
        return f"top {st.top}" + (f" (all {len(ranked)} plays)" if st.top >= len(ranked) else "")
    n_within = within_count(ranked, st.within)
    return (f"within {st.within:g} of the best, at most {st.max_plays}"
            + (f" (the {chosen} best: {n_within} within)" if chosen > n_within else ""))
