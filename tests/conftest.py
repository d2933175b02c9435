"""Shared fixtures: every engine test runs on both engines.

The ``engine`` fixture yields :func:`fastbg.engine.get_engine` for ``"python"``
and ``"cython"``. The Cython engine is skipped, with the reason, only when its
move generator ``fastbg._core.movegen`` cannot be imported (the package was not
built); any other failure to load it is an error, never a silent skip.
"""
from __future__ import annotations

import importlib

import pytest

from fastbg.engine import get_engine

ENGINE_NAMES = ("python", "cython")


def cython_unavailable_reason() -> str | None:
    """Why the compiled core cannot be used, or None if it can."""
    try:
        importlib.import_module("fastbg._core.movegen")
    except ImportError as exc:
        return (
            f"Cython core not built (cannot import fastbg._core.movegen: {exc}); "
            "build it with `pip install -e .`"
        )
    return None


@pytest.fixture(params=ENGINE_NAMES)
def engine(request):
    """One engine namespace (see :func:`fastbg.engine.get_engine`)."""
    if request.param == "cython":
        reason = cython_unavailable_reason()
        if reason is not None:
            pytest.skip(reason)
    return get_engine(request.param)


@pytest.fixture
def ctrl_c_after_games(monkeypatch):
    """``ctrl_c_after_games(n)``: the pure-Python engine's game loop raises
    KeyboardInterrupt (a Ctrl-C inside a block) when it starts game ``n + 1``."""
    from fastbg.reference import rollout as rref

    real_play = rref._play

    def arm(n: int) -> None:
        calls = {"n": 0}

        def play_then_interrupt(*args):
            calls["n"] += 1
            if calls["n"] > n:
                raise KeyboardInterrupt
            return real_play(*args)

        monkeypatch.setattr(rref, "_play", play_then_interrupt)

    arm.undo = lambda: monkeypatch.setattr(rref, "_play", real_play)
    return arm
