"""Named rollout settings: common choices of checker-play depth, move filter, truncation
and trials, each described by what it does.

A preset is a starting point, not a setting of its own: it fills in
:class:`~fastbg.rollouts.settings.RolloutSettings` fields (and a number of games), and a
run records the fields, never the name, so a stored run replays whatever the presets
become. ``fastbg rollout --preset NAME`` applies one (options given beside it win);
in Python, ``RolloutSettings(**rollout_preset(name).settings)``.

The depths and filters are GNU Backgammon's (plies counted as it counts them, 0 = the
network alone; filters :data:`fastbg.spec.nply.PRESETS`). Where a preset plays its
checkers at the ply and filter of one of GNU Backgammon's evaluation levels (its manual:
"World class" 2 ply with the Normal filter, "Supremo" 2 ply with the Large one), the
description says so; that is a statement about the checker play only. None of these was
measured against another program's rollout presets (eXtreme Gammon's XG Roller levels,
GNU Backgammon's rollout settings): no equivalence is claimed.

Every preset reduces variance with the 0-ply yardstick (``luck_ply=0``): the luck is
valued by the evaluator at 0 ply, which keeps the estimate unbiased (any yardstick does:
each roll's luck has mean zero given the game so far) and costs a small fraction of an
n-ply game; a deeper yardstick (``luck_ply``) removes more noise at about 21 n-ply
rankings a half-move. Truncated presets score the position after the last half-move at the
ply named; eXtreme Gammon's author advises against truncating earlier than 7 half-moves.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RolloutPreset", "PRESETS", "rollout_preset"]


@dataclass(frozen=True)
class RolloutPreset:
    """One named rollout setting.

    Attributes
    ----------
    name : str
    games : int
        Trials (games) of the preset.
    settings : dict
        :class:`~fastbg.rollouts.settings.RolloutSettings` fields.
    description : str
        What it does, in words.
    """

    name: str
    games: int
    settings: dict = field(default_factory=dict)
    description: str = ""


def _preset(name: str, games: int, description: str, **settings) -> RolloutPreset:
    return RolloutPreset(name, games, dict(settings), description)


#: The presets by name, quickest first.
PRESETS = {p.name: p for p in (
    _preset("quick", 648,
            "0-ply checker play, truncated after 10 half-moves and scored at 1 ply, "
            "luck at 0 ply, 648 games",
            ply=0, truncate=10, truncate_ply=1),
    _preset("1ply", 1296,
            "1-ply checker play through the Normal filter, games played out, luck at 0 ply, "
            "1,296 games",
            ply=1, move_filter="normal"),
    _preset("1ply-truncated", 1296,
            "1-ply checker play through the Normal filter, truncated after 10 half-moves "
            "and scored at 2 ply, luck at 0 ply, 1,296 games",
            ply=1, move_filter="normal", truncate=10, truncate_ply=2),
    _preset("2ply", 1296,
            "2-ply checker play through the Normal filter (the ply and filter of GNU "
            "Backgammon's 'World class' checker play), games played out, luck at 0 ply, "
            "1,296 games",
            ply=2, move_filter="normal"),
    _preset("2ply-large", 1296,
            "2-ply checker play through the Large filter (the ply and filter of GNU "
            "Backgammon's 'Supremo' checker play), games played out, luck at 0 ply, "
            "1,296 games",
            ply=2, move_filter="large"),
    _preset("2ply-truncated", 1296,
            "2-ply checker play through the Normal filter, truncated after 7 half-moves and "
            "scored at 2 ply, luck at 0 ply, 1,296 games",
            ply=2, move_filter="normal", truncate=7, truncate_ply=2),
)}


def rollout_preset(name: str) -> RolloutPreset:
    """The preset ``name`` (:data:`PRESETS`).

    Raises
    ------
    ValueError
        For an unknown name (naming the presets).

    Examples
    --------
    >>> rollout_preset("2ply").settings
    {'ply': 2, 'move_filter': 'normal'}
    """
    if name not in PRESETS:
        raise ValueError(f"unknown rollout preset {name!r}: choose one of {', '.join(PRESETS)}")
    return PRESETS[name]
