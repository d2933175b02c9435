"""Shared fixtures: every engine test runs on both engines.

The ``engine`` fixture yields :func:`fastbg.engine.get_engine` for ``"python"``
and ``"cython"``. The Cython engine is skipped, with the reason, only when its
move generator ``fastbg._core.movegen`` cannot be imported (the package was not
built); any other failure to load it is an error, never a silent skip.

The tiers (docs/development.md, "Tests"): ``python -m pytest`` runs every test (the CI
gate); ``python -m pytest -m "not slow"`` leaves out the large cases marked ``slow`` (the
quick loop); the pytest-benchmark timings (marker ``bench``) run only when ``-m`` names
them (``python -m pytest -m bench -n 0``).
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


def pytest_collection_modifyitems(config, items):
    """Deselect the benchmarks unless the ``-m`` expression names them: a quick loop's
    ``-m "not slow"`` replaces any ``-m`` of addopts, and must not select them."""
    if "bench" in (config.getoption("markexpr") or ""):
        return
    bench = [item for item in items if item.get_closest_marker("bench")]
    if bench:
        config.hook.pytest_deselected(items=bench)
        items[:] = [item for item in items if not item.get_closest_marker("bench")]


@pytest.fixture(scope="session")
def exact_race_values():
    """``{(name, policy): probabilities}``: the exact outcome probabilities of
    test_statistics.POSITIONS under pubeval's and random play (tests/exact.py), computed
    once per test process for the statistics tests of several files."""
    from exact import exact_outcomes, probabilities
    from test_statistics import POSITIONS

    try:
        eng = get_engine("cython")
    except ImportError:
        eng = get_engine("python")
    return {(name, pol): probabilities(exact_outcomes(b, eng, pol))
            for name, b in POSITIONS.items() for pol in ("pubeval", "random")}


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
