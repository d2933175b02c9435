"""Rollouts: Monte Carlo estimates of a position's probabilities and equity.

:func:`~fastbg.rollouts.cubeless.rollout` (cubeless win, gammon and backgammon
probabilities and equity) and :func:`~fastbg.rollouts.cubeful.cubeful_rollout` (the cube in
play, money or match) and :func:`~fastbg.rollouts.plays.rollout_plays` (candidate plays side
by side) and :func:`~fastbg.rollouts.cuberollout.cube_rollout` (No double against
Double/take with the same dice), all cut into seeded blocks of games by
:mod:`~fastbg.rollouts.blocks` so that the numbers depend only on the seed and the
settings; a run takes its settings (:class:`~fastbg.rollouts.settings.RolloutSettings`,
:class:`~fastbg.rollouts.candidates.PlaysSettings`, and for the runs with the cube in play
those of :mod:`~fastbg.rollouts.cubesettings`: what the numbers depend on) and a
:class:`~fastbg.rollouts.runner.Runner` (where and how it plays) as two objects;
:func:`~fastbg.rollouts.cubedecision.cube_decision` (the cube decision of ``fastbg cube``
by any of its methods); :mod:`~fastbg.rollouts.presets` (named settings: checker-play
ply, filter, truncation, trials); :mod:`~fastbg.rollouts.bench` times the engines for ``fastbg bench``.
"""
from .blocks import BLOCK_SIZE, block_bit_generator, run_blocks
from .candidates import PlaysSettings
from .cubeful import CubefulRolloutResult, cubeful_rollout
from .cubedecision import CubeDecision, cube_decision, cube_method
from .cuberollout import CubeRolloutResult, cube_rollout
from .cubesettings import CubeDecisionSettings, CubefulSettings, CubeRolloutSettings
from .cubeless import DEFAULT_POLICY, POLICIES, RolloutResult, outcome_statistics, rollout
from .plays import PlaysRolloutResult, rank_plays, rollout_plays
from .presets import RolloutPreset, rollout_preset
from .runner import Runner
from .settings import RolloutSettings

__all__ = [
    "BLOCK_SIZE", "block_bit_generator", "run_blocks", "CubefulRolloutResult",
    "cubeful_rollout", "DEFAULT_POLICY", "POLICIES", "RolloutResult", "outcome_statistics",
    "rollout", "PlaysRolloutResult", "rank_plays", "rollout_plays", "CubeRolloutResult",
    "cube_rollout", "CubeDecision", "cube_decision", "cube_method", "RolloutSettings", "Runner",
    "PlaysSettings", "CubefulSettings", "CubeRolloutSettings", "CubeDecisionSettings",
    "RolloutPreset", "rollout_preset",
]
