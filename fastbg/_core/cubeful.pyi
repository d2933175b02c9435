"""Stubs for the compiled ``fastbg._core.cubeful`` (see pyx/fastbg/_core/cubeful.pyx)."""
import numpy as np
import numpy.typing as npt

from .eval import Policy
from .nn import NNPolicy

RESULT_CLASSES: tuple[str, ...]
N_CUBE_VALUES: int
MAX_CUBE_LOG2: int

def cubeful_block(
    board: npt.ArrayLike,
    games: int,
    bitgen: np.random.BitGenerator,
    policy: Policy | str,
    evaluator: NNPolicy,
    *,
    cube: int = 1,
    cube_owner: str = "centred",
    max_cube: int = 4096,
    x: float | None = None,
    jacoby: bool = False,
    opening: bool = False,
    match: tuple[np.ndarray, int, int] | None = None,
    holland_wait: int = 0,
    root_decision: bool = True,
    yardstick: object | None = None,
    prefilter: int = 0,
    cells: np.ndarray | None = None,
    luck: np.ndarray | None = None,
    qrolls: npt.ArrayLike | None = None,
    stop: np.ndarray | None = None,
) -> np.ndarray: ...
def default_x(board: npt.ArrayLike) -> float: ...
def is_last_roll(board: npt.ArrayLike) -> bool: ...
def cube_decision(
    probabilities: npt.ArrayLike, x: float, owned: bool = False, jacoby: bool = False
) -> tuple[int, float, float]: ...
def probabilities(evaluator: NNPolicy, board: npt.ArrayLike) -> np.ndarray: ...
def match_decision(
    tables: npt.ArrayLike, probabilities: npt.ArrayLike, away: int, away_opponent: int,
    cube: int = 1, owned: bool = False, x: float = 0.68,
) -> tuple[int, float, float, float]: ...
