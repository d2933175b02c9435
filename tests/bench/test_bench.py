"""pytest-benchmark timings of both engines (deselected by default; ``python -m pytest -m bench -n 0``:
in one process, as pytest-benchmark measures nothing under pytest-xdist).

The same workloads as ``fastbg bench``: random-policy and pubeval games from the
start with the opening roll, legal-play generation over the fixed seeded
positions x 21 rolls, and perft from the start. Compare runs with
``python -m pytest -m bench -n 0 --benchmark-autosave`` and ``pytest-benchmark compare``.
"""
from __future__ import annotations

import pytest

from fastbg.rollouts.bench import ROLLS, bench_positions
from fastbg.rollouts.blocks import run_blocks
from fastbg.game.position import START_BOARD

pytestmark = pytest.mark.bench

# Games per benchmarked call: a fraction of a second in each engine.
GAMES = {"cython": 2_000, "python": 10}
POSITIONS = {"cython": 1000, "python": 50}


@pytest.fixture(scope="module")
def positions():
    return bench_positions(1000)


@pytest.mark.parametrize("policy", ["random", "pubeval"])
def test_games(benchmark, engine, policy):
    n = GAMES[engine.name]
    benchmark.extra_info.update(games=n, unit="games per call")
    run = benchmark(run_blocks, START_BOARD, n, 1, engine=engine.name, policy=policy,
                    opening=True, workers=1)
    assert run.counts.sum() == n


def test_legal_plays(benchmark, engine, positions):
    boards = list(positions[: POSITIONS[engine.name]])
    legal_plays = engine.legal_plays

    def work():
        return sum(len(legal_plays(b, d1, d2)) for b in boards for d1, d2 in ROLLS)

    benchmark.extra_info.update(pairs=len(boards) * len(ROLLS), unit="(position, roll) pairs per call")
    assert benchmark(work) > 0


@pytest.mark.parametrize("depth", [2, 3])
def test_perft_start(benchmark, engine, depth):
    if engine.name == "python" and depth > 2:
        pytest.skip("pure Python perft 3 takes tens of minutes")
    expected = {2: 202_782, 3: 116_154_993}[depth]
    benchmark.extra_info.update(leaves=expected)
    rounds = 1 if (engine.name == "python" or depth == 3) else 5
    assert benchmark.pedantic(engine.perft, args=(START_BOARD, depth), rounds=rounds,
                              iterations=1) == expected
