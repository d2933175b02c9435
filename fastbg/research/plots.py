"""Pictures of the numbers: the convergence of a rollout, and a plot of each table.

:func:`convergence` turns a run's per-block sums (what the results store keeps, or what
:func:`fastbg.rollout`'s ``on_block`` hands over) into the estimate and its standard error
after each block; :func:`plot_convergence` draws it, :func:`plot_table` draws a table
(:meth:`fastbg.research.table.TableResult.to_dict`, or a stored table's summary). Drawing
needs matplotlib (``pip install 'fastbg[plot]'``), imported on first use.
"""
from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..game.files import missing_directory, why_not_written
from ..game.picture import pyplot
from ..rollouts.cubeless import normal_quantile, outcome_statistics, vr_statistics

__all__ = ["convergence", "plot_convergence", "plot_table", "save_figure", "check_plot_path",
           "PLOT_FORMATS"]

#: File formats of the plots, by file name suffix.
PLOT_FORMATS = ("png", "svg", "pdf")
_Z = normal_quantile(0.975)


def convergence(blocks, kind: str = "rollout", labels=None, point=None,
                unit: str = "cubeless equity") -> dict:
    """The estimate and its standard error after each block of a run.

    Parameters
    ----------
    blocks : iterable of (games, counts, sums)
        The run's blocks in block order (:meth:`fastbg.rollouts.store.ResultsStore.blocks`'
        values): games, integer counts and float sums (None for a plain rollout).
    kind : {"rollout", "plays"}
        A cubeless rollout (counts of shape (6,), or (22, 6) broken down by first roll:
        the totals are row 0) or candidate plays rolled out side by side (every block with
        the same candidates: a run whose pruning dropped plays has no single curve per play).
    labels : list of str, optional
        The curves' names (the candidate plays, in block order, for ``"plays"``).
    point : callable, optional
        ``point(counts, sums, n)`` -> a list of ``(estimate, stderr)``, one per curve, of
        the merged blocks: the statistics of another kind of run (a cubeful rollout's:
        :func:`fastbg.rollouts.cubeful.convergence_point`).
    unit : str
        What the estimate is, for the plot's axis (``"cubeless equity"``).

    Returns
    -------
    dict
        ``games`` (list of int: games after each block), ``unit`` and ``curves``: a list of
        ``{"label", "equity", "stderr"}`` (lists of float, one per block; cubeless equity
        per unit cube, the mover's for plays). The sums are added exactly (as fractions),
        so the last point is the run's own result.

    Raises
    ------
    ValueError
        An unknown kind, blocks of different shapes (pruned plays), or no blocks.
    """
    blocks = list(blocks)
    if not blocks:
        raise ValueError("the run has no finished block yet: nothing to plot")
    if kind not in ("rollout", "plays") and point is None:
        raise ValueError(f"no convergence plot for a {kind} run")
    shapes = {np.shape(c) for _, c, _ in blocks}
    if len(shapes) > 1:
        raise ValueError("its blocks have different shapes (pruning dropped candidate plays "
                         "on the way): no single curve per play")
    games, n = [], 0
    counts = np.zeros(next(iter(shapes)), dtype=np.int64)
    exact = None
    points = []
    for g, c, f in blocks:
        n += int(g)
        games.append(n)
        counts += np.asarray(c, dtype=np.int64)
        if f is not None:
            flat = np.asarray(f, dtype=np.float64).ravel()
            if exact is None:
                exact = [Fraction(0)] * flat.size
            for i, x in enumerate(flat.tolist()):
                exact[i] += Fraction(x)
        sums = None if exact is None else np.array([float(x) for x in exact]).reshape(np.shape(f))
        points.append(point(counts, sums, n) if point is not None else
                      _plays_point(sums, n) if kind == "plays" else _rollout_point(counts, sums, n))
    m = len(points[0])
    labels = list(labels) if labels is not None else (
        [f"play {i + 1}" for i in range(m)] if kind == "plays" else ["equity"] * m)
    if len(labels) != m:
        raise ValueError(f"{len(labels)} labels for {m} curves")
    return {"games": games, "unit": unit, "curves": [{"label": labels[i],
                                        "equity": [p[i][0] for p in points],
                                        "stderr": [p[i][1] for p in points]} for i in range(m)]}


def _rollout_point(counts, sums, n):
    if counts.ndim == 2:                 # broken down by first roll: row 0 holds the totals
        counts = counts[0]
        sums = None if sums is None else sums[0]
    est, se = vr_statistics(sums, n) if sums is not None else outcome_statistics(counts)
    return [(est["equity"], se["equity"])]


def _plays_point(sums, n):
    f = np.asarray(sums, dtype=np.float64)
    m = int(round((-12 + np.sqrt(144 + 4 * f.size)) / 2))   # size = 12 m + m^2
    s, ss = f[:6 * m].reshape(m, 6), f[6 * m:12 * m].reshape(m, 6)
    out = []
    for i in range(m):
        est, se = vr_statistics(np.array([s[i], ss[i]]), n)
        out.append((est["equity"], se["equity"]))
    return out


def save_figure(fig, path) -> Path:
    """Write a matplotlib figure to ``path`` (PNG, SVG or PDF by its suffix) and close it.

    Raises
    ------
    ValueError
        Another suffix, or a file that cannot be written (nothing is written then).
    """
    plt = pyplot("plots")
    try:
        path = _plot_file_name(path)
        try:
            fig.savefig(path, format=path.suffix.lstrip(".").lower(), dpi=120,
                        bbox_inches="tight")
        except OSError as exc:
            raise ValueError(f"cannot write the plot {path}: "
                             f"{why_not_written(path, exc)}") from None
    finally:
        plt.close(fig)
    return path


def _plot_file_name(path) -> Path:
    """``path`` as a Path, if it names a plot file: a .png, .svg or .pdf name (not a
    directory path ending in a slash, which Path would quietly drop) in a directory that
    exists; ValueError otherwise."""
    text = str(path)
    if text.endswith(tuple(s for s in (os.sep, os.altsep) if s)):
        raise ValueError(f"the plot {text!r} ends in {text[-1]!r}: that is a directory path, "
                         "not a file name (e.g. plot.png)")
    path = Path(path)
    if path.suffix.lstrip(".").lower() not in PLOT_FORMATS:
        raise ValueError(f"a plot is PNG, SVG or PDF (by its file name's suffix), not "
                         f"{path.name!r}")
    missing = missing_directory(path)
    if missing is not None:
        raise ValueError(f"cannot write the plot {path}: {missing}")
    return path


def _probe_writable(path: Path) -> None:
    """ValueError unless ``path`` can be written, found by trying: a missing file is
    created and removed again, an existing one opened to append and closed (neither
    leaves a trace; permission bits alone would not tell, for root, nor on /proc)."""
    try:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            made = True
        except FileExistsError:      # (a FIFO without a reader: an error, not a wait)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0))
            made = False
        os.close(fd)
        if made:
            os.remove(path)
    except OSError as exc:
        raise ValueError(f"cannot write the plot {path}: "
                         f"{why_not_written(path, exc)}") from None


def check_plot_path(path) -> None:
    """The checks of :func:`save_figure` that need no figure, before anything is computed
    or drawn, so that a run's plot cannot fail for its file after the run: a plot's file
    name ends in .png, .svg or .pdf (not in a slash), in a directory that exists, and the
    file can be written (tried, leaving nothing behind: :func:`_probe_writable`);
    matplotlib is there. ValueError or ImportError."""
    path = _plot_file_name(path)
    pyplot("plots")
    _probe_writable(path)


def plot_convergence(curve: dict, path, title: str = "") -> Path:
    """Draw :func:`convergence`'s estimate and its 95% interval against games played.

    Parameters
    ----------
    curve : dict
        :func:`convergence`'s result.
    path : str or Path
        The file (``.png``, ``.svg`` or ``.pdf``).
    title : str
        The plot's title.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ValueError
        A bad suffix or a file that cannot be written.
    ImportError
        Without matplotlib.
    """
    check_plot_path(path)
    plt = pyplot("plots")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    x = np.asarray(curve["games"], dtype=np.float64)
    for c in curve["curves"]:
        eq = np.asarray(c["equity"], dtype=np.float64)
        se = np.asarray([np.nan if v is None else v for v in c["stderr"]], dtype=np.float64)
        line, = ax.plot(x, eq, marker="." if len(x) < 40 else None, label=c["label"])
        ax.fill_between(x, eq - _Z * se, eq + _Z * se, color=line.get_color(), alpha=0.2, lw=0)
    ax.set_xlabel("games played")
    ax.set_ylabel(f"{curve.get('unit', 'cubeless equity')} (95% interval shaded)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(curve["curves"]) > 1:
        ax.legend(fontsize=8)
    return save_figure(fig, path)


def plot_table(table: dict, path) -> Path:
    """Draw a table: its plays (openings, replies), its races, or its gammon rates.

    Parameters
    ----------
    table : dict
        :meth:`fastbg.research.table.TableResult.to_dict` (or a stored table's summary).
    path : str or Path
        The file (``.png``, ``.svg`` or ``.pdf``).

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        A table with no rows, an unknown table, a bad suffix or a file that cannot be
        written.
    ImportError
        Without matplotlib.
    """
    check_plot_path(path)
    if not table.get("rows"):
        raise ValueError("the table has no finished row yet: nothing to plot")
    draw = _DRAW.get(table.get("table"))
    if draw is None:
        raise ValueError(f"no plot for a table {table.get('table')!r}")
    return save_figure(draw(pyplot("plots"), table), path)


def _plays_figure(plt, table):
    """Each roll's candidates: equity and 95% interval, the best one named."""
    rows = table["rows"]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.5))
    for y, row in enumerate(rows):
        for rank, p in enumerate(row["plays"]):
            se = p["stderr"]["equity"] or 0.0
            ax.errorbar(p["equity"], -y, xerr=_Z * se, fmt="o" if rank == 0 else ".",
                        color="C0" if rank == 0 else "0.6", ms=6 if rank == 0 else 4,
                        capsize=2, lw=1)
        ax.annotate(row["best"], (row["equity"], -y), xytext=(6, 5),
                    textcoords="offset points", fontsize=8)
    ax.set_yticks([-y for y in range(len(rows))], [r["roll"] for r in rows])
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set_xlabel("cubeless equity after the play, for the side that plays the roll "
                  "(95% intervals; best play in blue)")
    s = table["summary"]
    extra = f"; {s['meaning']}: {s['equity']:+.4f} ± {_Z * s['stderr']:.4f}" if "equity" in s else ""
    ax.set_title(f"{table['title']} ({table['games']:,} games per play){extra}", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return fig


def _race_figure(plt, table):
    """Win probability against the lead, by pip count; the formulas' wrong decisions."""
    rows, s = table["rows"], table["summary"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8))
    pips = sorted({r["pips"] for r in rows})
    for i, p in enumerate(pips):
        mine = [r for r in rows if r["pips"] == p]
        a.scatter([r["lead"] for r in mine], [r["rollout"]["win"] for r in mine],
                  color=f"C{i}", s=12, alpha=0.6)
        cells = [c for c in s["cells"] if c["pips"] == p]
        a.plot([c["lead"] for c in cells], [c["win"] for c in cells], color=f"C{i}",
               label=f"{p} pips")
    a.set_xlabel("lead of the player on roll (percent of its pip count)")
    a.set_ylabel("cubeless win probability (rollout)")
    a.set_title("races: each dot a random position, lines the cell means", fontsize=9)
    a.grid(alpha=0.3)
    a.legend(fontsize=8)
    for rule, style in (("keith", "o-"), ("trice", "s--")):
        rate = []
        for p in pips:
            mine = [r for r in rows if r["pips"] == p]
            wrong = sum(r[rule]["errors"]["double_wrong"] + r[rule]["errors"]["take_wrong"]
                        for r in mine)
            rate.append(wrong / (2 * len(mine)))
        t = s[rule]
        b.plot(pips, rate, style, label=f"{rule.capitalize()}: {t['error_rate']:.0%} wrong, "
                                         f"{t['mean_cost']:.3f} per position")
    b.set_xticks(pips)
    b.set_xlabel("pip count of the player on roll")
    b.set_ylabel("wrong double and take decisions (share)")
    b.set_title("the formulas against the rollouts' cube actions (Janowski)", fontsize=9)
    b.set_ylim(bottom=0)
    b.grid(alpha=0.3)
    b.legend(fontsize=8)
    return fig


def _gammons_figure(plt, table):
    """Gammon and backgammon rates of each phase, for the player on roll."""
    rows = [r for r in table["rows"] if r["positions"]]
    keys = (("win_gammon", "wins a gammon"), ("win_backgammon", "wins a backgammon"),
            ("lose_gammon", "loses a gammon"), ("lose_backgammon", "loses a backgammon"))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = np.arange(len(rows))
    w = 0.2
    for i, (k, label) in enumerate(keys):
        ax.bar(x + (i - 1.5) * w, [r[k] for r in rows], w,
               yerr=[_Z * (r["stderr"][k] or 0.0) for r in rows], capsize=2, label=label)
    ax.set_xticks(x, [r["phase"].replace("_", " ") for r in rows])
    ax.set_ylabel("share of the phase's positions (95% intervals)")
    s = table["summary"]
    ax.set_title(f"{table['title']}: {s['games']:,} games, gammons {s['gammon']:.1%}, "
                 f"backgammons {s['backgammon']:.1%} of games", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


_DRAW = {"openings": _plays_figure, "replies": _plays_figure, "race": _race_figure,
         "gammons": _gammons_figure}
