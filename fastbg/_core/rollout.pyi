"""Stubs for the compiled ``fastbg._core.rollout`` (see pyx/fastbg/_core/rollout.pyx)."""
from typing import Sequence

import numpy as np
import numpy.typing as npt

from fastbg.spec.nply import MoveFilter

from .eval import Policy

def play_game(
    board: npt.ArrayLike,
    bitgen: np.random.BitGenerator,
    policy: Policy | str,
    dice: tuple[int, int] | None = None,
    opening: bool = False,
) -> int: ...
def rollout_block(
    board: npt.ArrayLike,
    games: int,
    bitgen: np.random.BitGenerator,
    policy: Policy | str,
    dice: tuple[int, int] | None = None,
    opening: bool = False,
    classes: np.ndarray | None = None,
    qrolls: npt.ArrayLike | None = None,
    stop: np.ndarray | None = None,
) -> np.ndarray: ...
def rollout_block_vr(
    board: npt.ArrayLike,
    games: int,
    bitgen: np.random.BitGenerator,
    policy: Policy | str,
    yardstick: object,
    dice: tuple[int, int] | None = None,
    opening: bool = False,
    prefilter: int = 0,
    per_game: np.ndarray | None = None,
    qrolls: npt.ArrayLike | None = None,
    vr: bool = True,
    truncate: int = 0,
    bearoff2: bool = False,
    stop: np.ndarray | None = None,
    luck_ply: int = 0,
    truncate_ply: int = 0,
    move_filter: MoveFilter | str | Sequence | None = None,
) -> tuple[np.ndarray, np.ndarray]: ...
def roll_indices(bitgen: np.random.BitGenerator, n: int) -> np.ndarray: ...
OUTCOME_CLASSES: tuple[str, ...]
def match_game(
    board: npt.ArrayLike, dice_bitgen: np.random.BitGenerator, choice_bitgen: np.random.BitGenerator,
    policy_a: Policy | str, policy_b: Policy | str, opening: bool = True,
) -> int: ...
