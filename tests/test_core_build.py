"""The compiled core: it is built, it mirrors the reference, and its loop runs without the GIL."""
from __future__ import annotations

import importlib
import importlib.machinery
import pathlib
import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")

from fastbg.game.position import START_BOARD  # noqa: E402

MODULES = ("board", "movegen", "eval", "policies", "rollout")


@pytest.mark.parametrize("name", MODULES)
def test_modules_are_compiled_extensions_with_stubs(name):
    mod = importlib.import_module(f"fastbg._core.{name}")
    path = pathlib.Path(mod.__file__)
    assert path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), path
    assert (path.parent / f"{name}.pyi").is_file()


@pytest.mark.parametrize("name", MODULES)
def test_core_mirrors_the_reference_function_by_function(name):
    core = importlib.import_module(f"fastbg._core.{name}")
    ref = importlib.import_module(f"fastbg.reference.{name}")
    # notation only: the reference serves it; as_policy is a cdef function in the core
    skip = {"legal_plays_with_moves", "as_policy"}
    missing = [f for f in getattr(ref, "__all__", ()) if f not in skip and not hasattr(core, f)]
    assert not missing, f"fastbg._core.{name} lacks {missing}"


def test_policies_have_names_and_reject_unknown_names():
    from fastbg._core.policies import make_policy

    assert make_policy("random").name == "random"
    assert make_policy("pubeval").name == "pubeval"
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("gnubg")


def test_legal_plays_array_layout():
    from fastbg._core.movegen import legal_plays

    board = np.ascontiguousarray(START_BOARD)
    plays = legal_plays(board, 3, 1)
    assert plays.dtype == np.int8 and plays.shape == (16, 2, 25) and plays.flags.c_contiguous
    flat = [bytes(p.tobytes()) for p in plays]
    assert flat == sorted(flat) and len(set(flat)) == len(flat)  # canonical order, distinct
    # No legal play: an empty (0, 2, 25) array.
    #   bar | 24 23 22 21 20 19 |
    #    X  |  O  O  O  O  O  O |   X cannot enter: the opponent holds its points 1..6
    closed = np.zeros((2, 25), np.int8)
    closed[0, 24] = 1
    closed[1, 0:6] = 2
    assert legal_plays(closed, 6, 6).shape == (0, 2, 25)


@pytest.mark.parametrize("dice", [(0, 1), (7, 2), (1.0, 2), (True, 2)])
def test_bad_dice_are_value_errors(dice):
    from fastbg._core.movegen import legal_plays

    with pytest.raises(ValueError, match="die"):
        legal_plays(np.ascontiguousarray(START_BOARD), *dice)


def test_bit_generator_required():
    from fastbg._core.rollout import roll_indices, rollout_block

    with pytest.raises(TypeError, match="BitGenerator"):
        roll_indices(np.random.default_rng(1), 3)
    with pytest.raises(TypeError, match="BitGenerator"):
        rollout_block(np.ascontiguousarray(START_BOARD), 1, None, "pubeval")


def test_deadlocked_start_is_refused():
    from fastbg._core.rollout import play_game

    #   Both sides have a checker on the bar and a closed board: nobody can ever move.
    board = np.zeros((2, 25), np.int8)
    for side in (0, 1):
        board[side, 0:6] = 2
        board[side, 24] = 1
    with pytest.raises(ValueError, match="neither side can ever move"):
        play_game(board, np.random.PCG64DXSM(1), "random")


def test_rollout_block_releases_the_gil():
    from fastbg._core.rollout import rollout_block

    board = np.ascontiguousarray(START_BOARD)
    done = threading.Event()

    def work():
        rollout_block(board, 3000, np.random.PCG64DXSM(5), "random")
        done.set()

    ticks = 0
    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks += 1  # runs only while the worker does not hold the GIL
        time.sleep(0)
    worker.join()
    assert ticks > 100


def test_policy_object_shared_by_threads_gives_per_block_results():
    from concurrent.futures import ThreadPoolExecutor

    from fastbg._core.policies import make_policy
    from fastbg._core.rollout import rollout_block

    board = np.ascontiguousarray(START_BOARD)
    for name in ("pubeval", "random"):
        policy = make_policy(name)
        alone = [rollout_block(board, 300, np.random.PCG64DXSM(s), policy) for s in (1, 2)]
        with ThreadPoolExecutor(2) as ex:
            together = list(ex.map(lambda s: rollout_block(board, 300, np.random.PCG64DXSM(s), policy), (1, 2)))
        for a, b in zip(alone, together):
            assert np.array_equal(a, b)
