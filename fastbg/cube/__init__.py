"""Cube decisions: money play, match play, match equity tables and exact bear-offs.

Money play by Janowski's model (:mod:`~fastbg.cube.money`) with GNU Backgammon's cube
efficiency (:mod:`~fastbg.cube.efficiency`); match equity tables
(:mod:`~fastbg.cube.met`, read by :mod:`~fastbg.cube.metfile`) and match-play decisions
(:mod:`~fastbg.cube.match`); exact cubeless and cubeful values of small bear-offs
(:mod:`~fastbg.cube.bearoff`), the yardstick the approximations are tested against; how sure
a decision is (:mod:`~fastbg.cube.stats`: delta-method standard errors, margins in standard
errors, when trials decide) and the decision of ``fastbg cube`` from a rollout's
probabilities or the bear-off database (:mod:`~fastbg.cube.decision`).
"""
from ..game.outcomes import CUBE_OWNERS
from .decision import exact_cube_decision, janowski_cube_decision
from .efficiency import (BEAROFF_CUBE_EFFICIENCY, CONTACT_CUBE_EFFICIENCY,
                         DEFAULT_CUBE_EFFICIENCY, LAST_ROLL_CUBE_EFFICIENCY,
                         RACE_CUBE_EFFICIENCY, cube_efficiency, default_cube_efficiency,
                         is_last_roll)
from .match import MatchCubeDecision, cubeful_mwc, live_cube_mwc, match_cube_decision
from .met import DEFAULT_MET, OUTCOMES, SHIPPED_METS, MatchEquityTable, outcome_probabilities
from .metfile import load_met
from .money import (ACTIONS, MoneyCubeDecision, cash_point, cube_action, cubeful_equity,
                    cubeful_equity_gradient, gammon_values, money_cube_decision,
                    probability_covariance, probability_vector, take_point)
from .stats import (CLOSE_Z, MIN_DECIDING_TRIALS, decision_margins, decision_z,
                    delta_method_stderr, numerical_gradient, too_close, z_score)

__all__ = [
    "CUBE_OWNERS",
    "BEAROFF_CUBE_EFFICIENCY", "CONTACT_CUBE_EFFICIENCY", "DEFAULT_CUBE_EFFICIENCY",
    "LAST_ROLL_CUBE_EFFICIENCY", "RACE_CUBE_EFFICIENCY", "default_cube_efficiency",
    "is_last_roll", "MatchCubeDecision", "cubeful_mwc", "live_cube_mwc",
    "match_cube_decision", "DEFAULT_MET", "OUTCOMES", "SHIPPED_METS", "MatchEquityTable",
    "outcome_probabilities", "load_met", "ACTIONS", "MoneyCubeDecision", "cash_point",
    "cube_action", "cubeful_equity", "gammon_values", "money_cube_decision",
    "probability_covariance", "take_point", "cube_efficiency", "cubeful_equity_gradient",
    "probability_vector", "exact_cube_decision", "janowski_cube_decision", "CLOSE_Z",
    "MIN_DECIDING_TRIALS", "decision_margins", "decision_z", "delta_method_stderr",
    "numerical_gradient", "too_close", "z_score",
]
