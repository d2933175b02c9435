"""Speed benchmarks of the two engines: the figures of ``fastbg bench``.

Three workloads, the same for every engine (and, in ``experiments/bench_peers.py``,
for the peer libraries):

``random``
    Random-policy games from the start (with the opening roll), one thread,
    games per second.
``pubeval``
    The same with Tesauro's pubeval choosing the plays.
``movegen``
    Legal-play generation over a fixed set of positions x the 21 rolls (one
    :func:`legal_plays` call per pair, through the engine's Python function),
    (position, roll) pairs per second. The set comes from :func:`bench_positions`.

Each figure is the median of ``repeat`` timed runs of the same work (same seed,
so the same games). The games of both engines are identical for the same seed;
the pure-Python engine plays fewer of them (it is about a hundred times slower),
so its figure is a rate over a smaller sample of the same games.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from ..engine import get_engine
from ..spec.board import START_BOARD
from .blocks import run_blocks

__all__ = ["ROLLS", "bench_positions", "time_games", "time_movegen", "run_bench",
           "DEFAULT_GAMES", "format_table"]

ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))  # the 21 rolls

# Games per timed run, per engine and policy: each run takes roughly 0.3-1 s.
DEFAULT_GAMES = {
    ("cython", "random"): 10_000,
    ("cython", "pubeval"): 20_000,
    ("python", "random"): 50,
    ("python", "pubeval"): 50,
}
# (position, roll) pairs per timed legal-play run of the pure-Python engine: a
# prefix of the fixed set (the Cython engine runs the whole set).
PYTHON_MOVEGEN_POSITIONS = 100


def bench_positions(n: int = 1000, seed: int = 2026, every: int = 4) -> np.ndarray:
    """A fixed, seeded set of game positions for the legal-play benchmark.

    Random-policy games from the start (plain ``numpy.random.default_rng(seed)``
    dice, Cython move generator); every ``every``-th position reached with a
    player about to roll is kept, until ``n`` are collected. A finished game
    starts a new one. The same arguments give the same positions on every
    machine.

    Parameters
    ----------
    n : int
        Number of positions.
    seed : int
        Seed of the games.
    every : int
        Keep one position in ``every`` plies.

    Returns
    -------
    numpy.ndarray of int8, shape (n, 2, 25)
        Row 0 the player about to roll.
    """
    legal_plays = get_engine("cython").legal_plays
    rng = np.random.default_rng(seed)
    out = []
    b = START_BOARD.copy()
    ply = 0
    while len(out) < n:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        plays = legal_plays(b, d1, d2)
        if len(plays):
            b = plays[int(rng.integers(len(plays)))]
        if b[0].sum() == 0:  # game over: a new game
            b = START_BOARD.copy()
            continue
        b = np.ascontiguousarray(b[::-1])
        ply += 1
        if ply % every == 0:
            out.append(b.copy())
    return np.array(out, dtype=np.int8)


def time_games(engine: str, policy: str, games: int, seed: int = 1, workers: int = 1) -> float:
    """Seconds to play ``games`` games from the start (opening roll) with ``policy``.

    Raises
    ------
    KeyboardInterrupt
        If the run was cut short (Ctrl-C): its time is not that of ``games`` games.
    """
    t0 = time.perf_counter()
    run = run_blocks(START_BOARD, games, seed, engine=engine, policy=policy, opening=True,
                     workers=workers)
    if run.interrupted:
        raise KeyboardInterrupt
    return time.perf_counter() - t0


def time_movegen(engine: str, positions: np.ndarray) -> tuple[float, int]:
    """Seconds to generate the plays of every position x 21 rolls, and the plays found."""
    legal_plays = get_engine(engine).legal_plays
    boards = [np.ascontiguousarray(b) for b in positions]
    total = 0
    t0 = time.perf_counter()
    for b in boards:
        for d1, d2 in ROLLS:
            total += len(legal_plays(b, d1, d2))
    return time.perf_counter() - t0, total


def _median_rate(work: float, seconds: list[float]) -> dict:
    rates = [work / s for s in seconds]
    return {"median": statistics.median(rates), "runs": rates}


def run_bench(engines=("cython", "python"), repeat: int = 5, seed: int = 1,
              games: dict | None = None, positions: int = 1000,
              python_positions: int = PYTHON_MOVEGEN_POSITIONS, workers: int = 1,
              log=None) -> dict:
    """Measure every workload for every engine; medians of ``repeat`` runs.

    Parameters
    ----------
    engines : sequence of {"cython", "python"}
    repeat : int
        Timed runs per figure (after one untimed warm-up for the Cython engine).
    seed : int
        Root seed of the games (the same games for every run and engine).
    games : dict, optional
        ``{(engine, policy): games per run}``, overriding :data:`DEFAULT_GAMES`.
    positions : int
        Size of the fixed position set (:func:`bench_positions`).
    python_positions : int
        How many of them the pure-Python engine runs.
    workers : int
        Threads for the game workloads of the Cython engine.
    log : callable, optional
        Called with a progress line.

    Returns
    -------
    dict
        ``{"config": {...}, "results": {engine: {"random": {...}, "pubeval": {...},
        "movegen": {...}}}}``; each figure is ``{"median": rate, "runs": [rates],
        "work": units per run, "unit": ...}``.
    """
    games = {**DEFAULT_GAMES, **(games or {})}
    pos = bench_positions(positions)
    results = {}
    for eng in engines:
        get_engine(eng)  # fail early if the engine is missing
        res = {}
        for policy in ("random", "pubeval"):
            n = games[(eng, policy)]
            w = workers if eng == "cython" else 1
            if eng == "cython":
                time_games(eng, policy, min(n, 1000), seed, w)  # warm-up
            secs = [time_games(eng, policy, n, seed, w) for _ in range(repeat)]
            res[policy] = {**_median_rate(n, secs), "work": n, "unit": "games/s",
                           "workers": w}
            if log:
                log(f"{eng} {policy}: {res[policy]['median']:,.0f} games/s")
        sub = pos if eng == "cython" else pos[:python_positions]
        runs = []
        plays = 0
        for _ in range(repeat):
            s, plays = time_movegen(eng, sub)
            runs.append(s)
        pairs = len(sub) * len(ROLLS)
        res["movegen"] = {**_median_rate(pairs, runs), "work": pairs,
                          "unit": "(position, roll) pairs/s", "plays": plays,
                          "positions": len(sub)}
        if log:
            log(f"{eng} movegen: {res['movegen']['median']:,.0f} pairs/s")
        results[eng] = res
    return {
        "config": {"repeat": repeat, "seed": seed, "positions": positions,
                   "positions_seed": 2026, "python_positions": python_positions,
                   "workers": workers,
                   "games": {f"{e}/{p}": n for (e, p), n in games.items() if e in engines}},
        "results": results,
    }


_LABEL = {"cython": "fastbg Cython", "python": "fastbg pure Python"}


def format_table(report: dict) -> str:
    """The results of :func:`run_bench` as a Markdown table (ratios to the pure-Python engine)."""
    res = report["results"]
    lines = ["| engine | random games/s | pubeval games/s | legal plays, (position, roll)/s |",
             "|---|---:|---:|---:|"]
    for eng, r in res.items():
        lines.append(f"| {_LABEL.get(eng, eng)} | {r['random']['median']:,.0f} | "
                     f"{r['pubeval']['median']:,.0f} | {r['movegen']['median']:,.0f} |")
    if "cython" in res and "python" in res:
        c, p = res["cython"], res["python"]
        lines.append(f"| ratio Cython / Python | {c['random']['median'] / p['random']['median']:,.0f}x | "
                     f"{c['pubeval']['median'] / p['pubeval']['median']:,.0f}x | "
                     f"{c['movegen']['median'] / p['movegen']['median']:,.0f}x |")
    cfg = report["config"]
    lines.append("")
    runs = "One run" if cfg["repeat"] == 1 else f"Median of {cfg['repeat']} runs"
    python = f" (pure Python: the first {cfg['python_positions']})" if "python" in res else ""
    lines.append(f"{runs}; games from the start with the opening roll, "
                 f"seed {cfg['seed']}, {cfg['workers']} thread(s) for Cython; legal plays over "
                 f"{cfg['positions']} seeded positions x 21 rolls{python}.")
    return "\n".join(lines)
