"""Janowski's money cube formulas against exact cubeful values of small bear-offs.

Over every bear-off in which each side has one or two checkers in its home board
(27 x 27 = 729 positions by default), the exact cubeless winning chance from
:mod:`fastbg.cube.bearoff` is given to :mod:`fastbg.cube`'s Janowski formulas (no gammons are
possible, so it is the only input), and the resulting money cubeful equities and cube
actions are compared with the exact ones (perfect checker and cube play, unlimited
redoubles), for several cube efficiencies ``x``.

Per ``x`` and cube owner the Markdown table gives the largest absolute error of the
formula's equity (and where it occurs), the mean absolute and mean signed error, the
largest error of the equity after the proper action (``max(nd, min(dt, dp))``, which is
what the exact value of a centred or owned cube includes), and how many cube actions
differ from the exact ones; the last rows use fastbg's default ``x`` for each position (0 on the
last roll, where the cube is dead, else GNU Backgammon's 0.6 for bear-offs). A second table gives, per owner, the ``x`` that minimises the
mean absolute error, and a third compares the two centred-cube formulas (GNU
Backgammon's mixture and Janowski's own 1993 line) inside the live market window.

Usage
-----
    python experiments/janowski_vs_exact.py [--x 0 0.5 0.6 0.68 0.8 1]
        [--max-checkers 2] [--json experiments/results/janowski_vs_exact.json]
"""
from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

from fastbg.cube.bearoff import BearoffSolver, bearoff_board, home_boards
from fastbg.cube import cubeful_equity, money_cube_decision
from fastbg import Position

import record  # experiments/record.py: command, date and commit of a result

OWNERS = ("centred", "player", "opponent")
DEFAULT_X = (0.0, 0.5, 0.6, 0.68, 0.8, 1.0)
RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "janowski_vs_exact.json"


def describe(side: tuple) -> str:
    """Points of a home board's checkers, highest first: (0,0,0,0,1,1) -> '6,5'."""
    return ",".join(str(i + 1) for i in range(5, -1, -1) for _ in range(side[i]))


def janowski_line(p: float, x: float) -> float:
    """Janowski's own centred-cube equity without gammons (W = L = 1):
    4/(4 - x) (p (2 + x/2) - 1 - x/4), valid inside the market window."""
    return 4.0 / (4.0 - x) * (p * (2.0 + x / 2.0) - 1.0 - x / 4.0)


def exact_table(max_checkers: int) -> list[dict]:
    solver = BearoffSolver()
    sides = home_boards(max_checkers)
    rows = []
    for a in sides:
        for b in sides:
            v = solver.value(a, b)
            rows.append({
                "mine": describe(a), "theirs": describe(b), "win": v.win,
                "position": Position(bearoff_board(a, b)),
                "centred": v.centred, "player": v.owned, "opponent": v.opponent,
                "action_centred": v.cube_decision("centred")[3],
                "action_player": v.cube_decision("player")[3],
            })
    return rows


def compare(exact: list[dict], x: float | None) -> list[dict]:
    """x None: fastbg's default per position (0 on the last roll, else 0.6 in bear-offs)."""
    out = []
    for owner in OWNERS:
        errs, after, differ = [], [], 0
        for r in exact:
            q = [r["win"], 0.0, 0.0, 0.0, 0.0]
            pos = r["position"] if x is None else None
            formula = cubeful_equity(q, x=x, cube_owner=owner, position=pos)
            errs.append(formula - r[owner])
            if owner == "opponent":
                after.append(formula - r[owner])
            else:
                d = money_cube_decision(q, x=x, cube_owner=owner, position=pos)
                after.append(d.equity - r[owner])
                differ += d.action != r[f"action_{owner}"]
        errs, after = np.array(errs), np.array(after)
        i = int(np.argmax(np.abs(errs)))
        out.append({
            "x": "default" if x is None else x, "cube": owner,
            "max_abs_error": float(np.abs(errs).max()),
            "mean_abs_error": float(np.abs(errs).mean()),
            "mean_error": float(errs.mean()),
            "worst": {k: exact[i][k] for k in ("mine", "theirs", "win", owner)}
            | {"janowski": float(errs[i] + exact[i][owner])},
            "max_abs_error_after_action": float(np.abs(after).max()),
            "actions_differing": None if owner == "opponent" else differ,
            "positions": len(exact),
        })
    return out


def best_x(exact: list[dict]) -> dict:
    grid = np.round(np.linspace(0, 1, 101), 2)
    best = {}
    for owner in OWNERS:
        maes = [np.mean([abs(cubeful_equity([r["win"], 0, 0, 0, 0], x=float(x), cube_owner=owner)
                             - r[owner]) for r in exact]) for x in grid]
        j = int(np.argmin(maes))
        best[owner] = {"x": float(grid[j]), "mean_abs_error": float(maes[j])}
    return best


def window_comparison(exact: list[dict], xs) -> list[dict]:
    """Centred cube inside the live window 0.2 <= p <= 0.8: mixture vs Janowski's line."""
    inside = [r for r in exact if 0.2 <= r["win"] <= 0.8]
    out = []
    for x in xs:
        mix = np.array([cubeful_equity([r["win"], 0, 0, 0, 0], x=x) - r["centred"] for r in inside])
        line = np.array([janowski_line(r["win"], x) - r["centred"] for r in inside])
        out.append({"x": x, "positions": len(inside),
                    "mixture_max_abs_error": float(np.abs(mix).max()),
                    "mixture_mean_abs_error": float(np.abs(mix).mean()),
                    "line_max_abs_error": float(np.abs(line).max()),
                    "line_mean_abs_error": float(np.abs(line).mean())})
    return out


def markdown(rows, best, window) -> str:
    lines = [
        "| x | cube | max abs err | mean abs err | mean err "
        "| worst at (mine v theirs, win: exact / Janowski) "
        "| max abs err after action | actions differing |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        w = r["worst"]
        where = (f"{w['mine']} v {w['theirs']}, {w['win']:.4f}: "
                 f"{w[r['cube']]:+.4f} / {w['janowski']:+.4f}")
        n = r["actions_differing"]
        differ = "-" if n is None else f"{n}/{r['positions']}"
        lines.append(
            f"| {r['x'] if isinstance(r['x'], str) else format(r['x'], 'g')} | {r['cube']} | {r['max_abs_error']:.4f} | {r['mean_abs_error']:.4f} "
            f"| {r['mean_error']:+.4f} | {where} "
            f"| {r['max_abs_error_after_action']:.4f} | {differ} |"
        )
    lines += ["", "| cube | x with the least mean abs error | mean abs err |", "|---|---|---|"]
    for owner, b in best.items():
        lines.append(f"| {owner} | {b['x']:.2f} | {b['mean_abs_error']:.4f} |")
    lines += ["", "| x | centred, 0.2 <= win <= 0.8 (n) | mixture max / mean abs err "
              "| Janowski line max / mean abs err |", "|---|---|---|---|"]
    for w in window:
        lines.append(
            f"| {w['x']:g} | {w['positions']} | {w['mixture_max_abs_error']:.4f} / "
            f"{w['mixture_mean_abs_error']:.4f} | {w['line_max_abs_error']:.4f} / "
            f"{w['line_mean_abs_error']:.4f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--x", type=float, nargs="+", default=list(DEFAULT_X),
                    help="cube efficiencies to compare (default: %(default)s)")
    ap.add_argument("--max-checkers", type=int, default=2,
                    help="checkers per side, at least one (default: %(default)s)")
    ap.add_argument("--json", type=pathlib.Path, default=RESULTS,
                    help="where to write the JSON results (default: %(default)s)")
    args = ap.parse_args(argv)
    if any(not 0 <= x <= 1 for x in args.x):
        ap.error("every --x must be in [0, 1]")
    if not 1 <= args.max_checkers <= 14:
        ap.error("--max-checkers must be in 1..14")

    t0 = time.perf_counter()
    exact = exact_table(args.max_checkers)
    rows = [r for x in [*args.x, None] for r in compare(exact, x)]
    best = best_x(exact)
    window = window_comparison(exact, args.x)
    seconds = time.perf_counter() - t0
    print(f"{len(exact)} bear-offs, 1 to {args.max_checkers} checkers a side, "
          f"exact cubeless win as Janowski's input ({seconds:.1f} s)\n")
    print(markdown(rows, best, window))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    record.write_json(args.json, {
        "max_checkers": args.max_checkers, "positions": len(exact), "x": args.x,
        "comparison": rows, "best_x": best, "centred_window": window, "seconds": seconds,
    })
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
