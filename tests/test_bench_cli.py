"""``fastbg bench``'s machinery on a tiny workload (the timings themselves are in tests/bench)."""
from __future__ import annotations

import numpy as np

from fastbg.rollouts.bench import bench_positions, format_table, run_bench
from fastbg.reference.board import validate_board


def test_bench_positions_fixed_and_valid():
    a = bench_positions(50)
    b = bench_positions(50)
    assert a.shape == (50, 2, 25) and a.dtype == np.int8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, bench_positions(50, seed=7))
    for pos in a:
        validate_board(pos)
        assert pos[0].sum() > 0 and pos[1].sum() > 0


def test_run_bench_small():
    games = {("cython", "random"): 20, ("cython", "pubeval"): 20,
             ("python", "random"): 2, ("python", "pubeval"): 2}
    rep = run_bench(repeat=2, games=games, positions=10, python_positions=3)
    for eng in ("cython", "python"):
        r = rep["results"][eng]
        for key in ("random", "pubeval", "movegen"):
            assert r[key]["median"] > 0 and len(r[key]["runs"]) == 2
    # Both engines find the same plays on the positions they share.
    assert rep["results"]["python"]["movegen"]["positions"] == 3
    table = format_table(rep)
    assert "fastbg Cython" in table and "ratio Cython / Python" in table
    assert table.endswith("x 21 rolls (pure Python: the first 3).")
    assert "Median of 2 runs" in table


def test_the_table_names_only_what_ran():
    # `fastbg bench --engine cython --repeat 1` said "Median of 1 runs" and "(pure Python:
    # the first 100)" of an engine it had not run (new-user trial)
    rep = run_bench(repeat=1, games={("cython", "random"): 10, ("cython", "pubeval"): 10},
                    positions=5, python_positions=3, engines=("cython",))
    table = format_table(rep)
    assert "One run;" in table and "Median" not in table and "pure Python" not in table
