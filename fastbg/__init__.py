"""fastbg: a backgammon simulation engine with a Cython core.

The package is layered; each layer imports only the ones below it (checked by
import-linter, ``pyproject.toml``): ``cli`` > ``research`` > ``rollouts`` > ``cube`` | ``nn``
> ``game`` > ``formats`` > ``engine`` > ``_core`` (compiled) > ``reference`` (pure Python).

Public API
----------
``Position``
    A validated board with GNU Backgammon Position ID and XGID conversions.
``legal_plays(position, dice, engine="cython")``
    Every legal play for a roll, with notation.
``rollout(position, games, *, settings=None, runner=None, **overrides)``
    Monte Carlo rollout -> RolloutResult; ``overrides`` are fields of the settings
    (``RolloutSettings``: seed, policy, dice, vr, ...) or of the ``Runner`` (engine, workers,
    dask, store, progress, ...).
``RolloutSettings(...)``, ``Runner(...)``
    What a rollout's numbers depend on (frozen, validated; its ``as_dict()`` is what the
    results store records) and where and how it plays.
``resume(store, run_id, *, games=None, **runner)``
    Continue, extend or read again a stored rollout or table.
``cubeful_rollout(position, games, *, settings=None, runner=None, **overrides)``
    Rollout with the cube in play, money or match -> CubefulRolloutResult; ``overrides``
    are fields of ``CubefulSettings`` (seed, policy, state, x, met, ...) or of the
    ``Runner``.
``cube_rollout(position, games, *, settings=None, runner=None, **overrides)``
    A cube decision by rolling out No double and Double/take with the same dice
    -> CubeRolloutResult (settings: ``CubeRolloutSettings``).
``cube_decision(position, games=None, *, settings=None, runner=None, **overrides)``
    The cube decision of ``fastbg cube`` by its methods (a cube rollout, Janowski's model
    on a cubeless rollout or on an n-ply evaluation -- ``method="eval", ply=N`` --, or
    exactly from the bear-off database) -> CubeDecision
    (settings: ``CubeDecisionSettings``, with ``method`` and ``state``).
``CubefulSettings(...)``, ``CubeRolloutSettings(...)``, ``CubeDecisionSettings(...)``
    Their settings: frozen, validated, stored and resumed as ``RolloutSettings``.
``get_engine(name)``
    The functions of the "cython" or "python" engine.
``read_match(path), write_match(match, path, format=None), Match, MatchFileError``
    Matches and money sessions from Jellyfish ``.mat`` and GNU Backgammon ``.sgf`` files,
    every play and cube action checked as they are replayed (module
    :mod:`fastbg.game.matchfile`); ``parse_match(text)`` and ``format_match(match, format)``
    for text.
``MatchState, parse_game(text)``
    Cube, score and rules beside the board; read "start", Position IDs, GNU Backgammon
    PositionID:MatchID pairs and XGIDs.
``money_cube_decision(probabilities, ...), cubeful_equity, gammon_values, take_point, cash_point``
    Money cube decisions by Janowski's formulas -> MoneyCubeDecision.
``load_met(name_or_path), MatchEquityTable``
    Match equity tables (Kazaross-XG2 by default) and the arithmetic on them.
``match_cube_decision(probabilities, match_length, score, ...)``
    Match-play cube decisions in MWC and EMG -> MatchCubeDecision.
``openings_table(games, seed=None, ...), replies_table(opening, ...), race_table(...), gammons_table(...)``
    Equity tables, each a resumable run of the results store -> TableResult (module
    :mod:`fastbg.research`: also the Keith count, Trice's rule, random race positions and
    plots).
``evaluate(position, engine="cython", ply=0)`` (also ``nn.evaluate``)
    The shipped network's (or, in a pure bear-off, the bear-off database's)
    probabilities and cubeless equity, at 0 to 3 ply (GNU Backgammon's plies) -> dict
    (module :mod:`fastbg.nn`).

Importing fastbg is cheap: the names above are loaded from their subpackages on first
use (PEP 562), so ``fastbg --help`` and ``import fastbg`` do not pay for numpy's and the
core's start-up until they are needed, and the command line can catch Ctrl-C from its
first moment.
"""
import importlib
from typing import TYPE_CHECKING

from ._version import __version__ as __version__  # re-exported

__all__ = [
    "ENGINES", "POLICIES", "PROBABILITY_KEYS", "Play", "Position", "RolloutResult",
    "decode_position_id", "decode_xgid", "encode_position_id", "encode_xgid",
    "get_engine", "legal_plays", "parse_dice", "rollout", "rollout_plays", "rank_plays",
    "PlaysRolloutResult",
    "CubefulRolloutResult", "cubeful_rollout", "CubeRolloutResult", "cube_rollout",
    "CubeDecision", "cube_decision",
    "CUBE_OWNERS", "MoneyCubeDecision", "cash_point", "cube_action", "cubeful_equity",
    "default_cube_efficiency", "gammon_values", "money_cube_decision",
    "probability_covariance", "take_point",
    "DEFAULT_MET", "SHIPPED_METS", "MatchEquityTable", "load_met",
    "MatchCubeDecision", "match_cube_decision", "MatchState", "parse_game", "nn",
    "research", "resume", "evaluate", "RolloutSettings", "PlaysSettings", "Runner",
    "CubefulSettings", "CubeRolloutSettings", "CubeDecisionSettings", "openings_table",
    "replies_table", "race_table", "gammons_table", "TableResult",
    "Match", "MatchFileError", "read_match", "write_match", "parse_match", "format_match",
]

#: Where each public name lives.
_EXPORTS = {
    'nn': 'fastbg.nn',
    'evaluate': 'fastbg.nn',
    'research': 'fastbg.research',
    'openings_table': 'fastbg.research',
    'replies_table': 'fastbg.research',
    'race_table': 'fastbg.research',
    'gammons_table': 'fastbg.research',
    'TableResult': 'fastbg.research',
    'resume': 'fastbg.research',
    'RolloutSettings': 'fastbg.rollouts',
    'Runner': 'fastbg.rollouts',
    'PlaysSettings': 'fastbg.rollouts',
    'CubefulSettings': 'fastbg.rollouts',
    'CubeRolloutSettings': 'fastbg.rollouts',
    'CubeDecisionSettings': 'fastbg.rollouts',
    'CUBE_OWNERS': 'fastbg.cube',
    'DEFAULT_MET': 'fastbg.cube',
    'SHIPPED_METS': 'fastbg.cube',
    'MatchCubeDecision': 'fastbg.cube',
    'MatchEquityTable': 'fastbg.cube',
    'MoneyCubeDecision': 'fastbg.cube',
    'cash_point': 'fastbg.cube',
    'cube_action': 'fastbg.cube',
    'cubeful_equity': 'fastbg.cube',
    'default_cube_efficiency': 'fastbg.cube',
    'gammon_values': 'fastbg.cube',
    'load_met': 'fastbg.cube',
    'match_cube_decision': 'fastbg.cube',
    'money_cube_decision': 'fastbg.cube',
    'probability_covariance': 'fastbg.cube',
    'take_point': 'fastbg.cube',
    'ENGINES': 'fastbg.engine',
    'get_engine': 'fastbg.engine',
    'decode_position_id': 'fastbg.formats',
    'decode_xgid': 'fastbg.formats',
    'encode_position_id': 'fastbg.formats',
    'encode_xgid': 'fastbg.formats',
    'parse_dice': 'fastbg.formats',
    'PROBABILITY_KEYS': 'fastbg.game',
    'MatchState': 'fastbg.game',
    'Play': 'fastbg.game',
    'Position': 'fastbg.game',
    'legal_plays': 'fastbg.game',
    'parse_game': 'fastbg.game',
    'Match': 'fastbg.game',
    'MatchFileError': 'fastbg.game',
    'read_match': 'fastbg.game',
    'write_match': 'fastbg.game',
    'parse_match': 'fastbg.game',
    'format_match': 'fastbg.game',
    'POLICIES': 'fastbg.rollouts',
    'CubefulRolloutResult': 'fastbg.rollouts',
    'RolloutResult': 'fastbg.rollouts',
    'cubeful_rollout': 'fastbg.rollouts',
    'CubeRolloutResult': 'fastbg.rollouts',
    'cube_rollout': 'fastbg.rollouts',
    'CubeDecision': 'fastbg.rollouts',
    'cube_decision': 'fastbg.rollouts',
    'rollout': 'fastbg.rollouts',
    'rollout_plays': 'fastbg.rollouts',
    'rank_plays': 'fastbg.rollouts',
    'PlaysRolloutResult': 'fastbg.rollouts',
}

if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from . import nn, research
    from .nn import evaluate
    from .cube import (CUBE_OWNERS, DEFAULT_MET, SHIPPED_METS, MatchCubeDecision, MatchEquityTable,
                       MoneyCubeDecision, cash_point, cube_action, cubeful_equity,
                       default_cube_efficiency, gammon_values, load_met, match_cube_decision,
                       money_cube_decision, probability_covariance, take_point)
    from .engine import ENGINES, get_engine
    from .formats import decode_position_id, decode_xgid, encode_position_id, encode_xgid, parse_dice
    from .game import (PROBABILITY_KEYS, Match, MatchFileError, MatchState, Play, Position,
                       format_match, legal_plays, parse_game, parse_match, read_match,
                       write_match)
    from .research import (TableResult, gammons_table, openings_table, race_table, replies_table,
                           resume)
    from .rollouts import (POLICIES, CubeDecision, CubeDecisionSettings, CubefulRolloutResult,
                           CubefulSettings, CubeRolloutResult, CubeRolloutSettings,
                           PlaysRolloutResult, PlaysSettings, RolloutResult, RolloutSettings,
                           Runner,
                           cube_decision, cube_rollout, cubeful_rollout, rank_plays, rollout,
                           rollout_plays)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fastbg' has no attribute {name!r}")
    mod = importlib.import_module(module)
    value = mod if module == f"fastbg.{name}" else getattr(mod, name)
    globals()[name] = value   # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
