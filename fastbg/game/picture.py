"""Board pictures: a position drawn as GNU Backgammon and eXtreme Gammon show it, to SVG or PNG.

The player on roll (X, light checkers) is at the bottom with its home board bottom right,
as in :func:`fastbg.game.position.diagram`; points are numbered from X's side. The picture
shows the checkers (a count on a point of more than five), the bar, the checkers borne off,
the pip counts, the cube (its value and where it is: centred, or on its owner's side) and,
in a match, the score. Drawing needs matplotlib (``pip install fastbg[plot]``), which is
imported only here.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .files import missing_directory, why_not_written
from .matchstate import MatchState

__all__ = ["board_figure", "save_board", "PICTURE_FORMATS", "pyplot"]

#: File formats of :func:`save_board`.
PICTURE_FORMATS = ("svg", "png")

_W, _H = 15.0, 12.0          # board units: 12 points of width 1, bar 1, margins, off tray
_LIGHT, _DARK = "#f4efe1", "#2b2b2b"
_POINT_A, _POINT_B = "#b5651d", "#e8c27a"
_FELT, _FRAME = "#2e7d4f", "#5b3a1e"


def pyplot(what: str = "board pictures"):
    """``matplotlib.pyplot`` on the Agg backend (files, no window), imported on first use;
    ImportError saying that ``what`` needs matplotlib, and how to install it, without it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"{what} need matplotlib: pip install 'fastbg[plot]'") from None
    return plt


def _point_x(p: int) -> tuple[float, bool]:
    """Left edge of point ``p`` (1..24, X's numbering) and whether it is on the top."""
    if p <= 12:                      # bottom row, 12 on the left .. 1 on the right
        col = 12 - p                 # 0..11 left to right
        top = False
    else:                            # top row, 13 on the left .. 24 on the right
        col = p - 13
        top = True
    x = 1.0 + col + (1.0 if col >= 6 else 0.0)   # the bar after the sixth column
    return x, top


def board_figure(position, *, state=None, dice=None):
    """The board of a position as a matplotlib Figure.

    Parameters
    ----------
    position : Position
        The position, X (row 0, the player on roll) at the bottom.
    state : MatchState, optional
        Cube and score (default: money play, centred cube).
    dice : (int, int), optional
        The roll, drawn on X's side of the board.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ImportError
        Without matplotlib.
    """
    plt = pyplot()
    from matplotlib.patches import Circle, Polygon, Rectangle

    state = MatchState() if state is None else state
    b = np.asarray(position.board)
    fig = plt.figure(figsize=(7.5, 6.4))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-1.2, _W + 0.2)
    ax.set_ylim(-1.0, _H + 0.8)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.add_patch(Rectangle((0.4, 0.0), 14.2, _H, color=_FRAME))
    ax.add_patch(Rectangle((1.0, 0.5), 6.0, _H - 1.0, color=_FELT))
    ax.add_patch(Rectangle((8.0, 0.5), 6.0, _H - 1.0, color=_FELT))
    r = 0.45
    depth = 5.0                      # triangle height
    for p in range(1, 25):
        x, top = _point_x(p)
        colour = _POINT_A if p % 2 else _POINT_B
        if top:
            tri = [(x, _H - 0.5), (x + 1, _H - 0.5), (x + 0.5, _H - 0.5 - depth)]
            ax.text(x + 0.5, _H + 0.15, str(p), ha="center", va="center", fontsize=8,
                    color="#333333")
        else:
            tri = [(x, 0.5), (x + 1, 0.5), (x + 0.5, 0.5 + depth)]
            ax.text(x + 0.5, -0.2, str(p), ha="center", va="center", fontsize=8,
                    color="#333333")
        ax.add_patch(Polygon(tri, closed=True, color=colour))

    def stack(cx, n, top, fill, edge):
        shown = min(n, 5)
        for i in range(shown):
            cy = (_H - 0.5 - r - 2 * r * i) if top else (0.5 + r + 2 * r * i)
            ax.add_patch(Circle((cx, cy), r * 0.95, facecolor=fill, edgecolor=edge, lw=1))
        if n > 5:
            cy = (_H - 0.5 - r - 2 * r * 4) if top else (0.5 + r + 2 * r * 4)
            ax.text(cx, cy, str(n), ha="center", va="center", fontsize=9, fontweight="bold",
                    color=edge if fill == _LIGHT else _LIGHT)

    for p in range(1, 25):
        x, top = _point_x(p)
        nx, no = int(b[0, p - 1]), int(b[1, 24 - p])
        if nx:
            stack(x + 0.5, nx, top, _LIGHT, _DARK)
        elif no:
            stack(x + 0.5, no, top, _DARK, _LIGHT)
    # the bar: X's checkers towards the bottom half, O's towards the top
    if b[0, 24]:
        stack(7.5, int(b[0, 24]), False, _LIGHT, _DARK)
    if b[1, 24]:
        stack(7.5, int(b[1, 24]), True, _DARK, _LIGHT)
    off = position.checkers_off
    for n, top, fill in ((off[0], False, _LIGHT), (off[1], True, _DARK)):
        for i in range(n):
            y = (_H - 0.6 - 0.3 * i - 0.25) if top else (0.6 + 0.3 * i)
            ax.add_patch(Rectangle((14.1, y), 0.45, 0.25, facecolor=fill, edgecolor="#777777",
                                   lw=0.5))
    # the cube: centred at the left edge's middle, else on its owner's side
    value = state.cube if state.cube > 1 or state.cube_owner != "centred" else 64
    cy = {"centred": _H / 2, "player": 1.2, "opponent": _H - 1.2}[state.cube_owner]
    ax.add_patch(Rectangle((-0.95, cy - 0.45), 0.9, 0.9, facecolor="white", edgecolor=_DARK,
                           lw=1.5))
    ax.text(-0.5, cy, str(value), ha="center", va="center", fontsize=11, fontweight="bold")
    if dice is not None:
        for i, d in enumerate(dice):
            ax.add_patch(Rectangle((10.0 + 1.2 * i, _H / 2 - 0.45), 0.9, 0.9,
                                   facecolor="white", edgecolor=_DARK, lw=1.5))
            ax.text(10.45 + 1.2 * i, _H / 2, str(d), ha="center", va="center", fontsize=12)
    pips = position.pip_counts
    if state.is_money:
        rules = [r for r, on in (("Jacoby", state.jacoby), ("beavers", state.beaver)) if on]
        game = "money game" + (f" ({', '.join(rules)})" if rules else "")
    else:
        game = (f"{state.match_length}-point match, X {state.score[0]} - O {state.score[1]}"
                + (", Crawford" if state.crawford else ", post-Crawford"
                   if state.post_crawford else ""))
    ax.text(0.4, _H + 0.55, f"O (dark)  pips {pips[1]}   off {off[1]}", ha="left",
            va="center", fontsize=10)
    ax.text(0.4, -0.7, f"X (light, on roll)  pips {pips[0]}   off {off[0]}", ha="left",
            va="center", fontsize=10)
    ax.text(14.6, -0.7, f"{game}   {position.to_position_id()}", ha="right", va="center",
            fontsize=8, color="#333333")
    return fig


def save_board(position, path, *, state=None, dice=None, fmt: str | None = None) -> Path:
    """Draw a position (:func:`board_figure`) into an SVG or PNG file.

    Parameters
    ----------
    position : Position
    path : str or Path
        The file to write.
    state, dice
        As :func:`board_figure`.
    fmt : {"svg", "png"}, optional
        Default: the file's suffix, which must match it.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ValueError
        For an unknown format.
    ImportError
        Without matplotlib.
    """
    if not str(path):
        raise ValueError("a board picture needs a file name")
    path = Path(path)
    suffix = path.suffix.lstrip(".").lower()
    fmt = (fmt or suffix).lower()
    if fmt not in PICTURE_FORMATS:
        raise ValueError(f"a board picture is SVG or PNG, not {fmt or 'a file without suffix'!r}")
    if suffix != fmt:
        article = "an" if fmt == "svg" else "a"     # as it is read: "an ess-vee-gee"
        raise ValueError(f"{article} {fmt.upper()} picture's file name ends in .{fmt}, not "
                         f"{path.name!r}")
    missing = missing_directory(path)
    if missing is not None:      # (before the board is drawn)
        raise ValueError(f"cannot write the picture {path}: {missing}")
    fig = board_figure(position, state=state, dice=dice)
    try:
        fig.savefig(path, format=fmt, dpi=120)
    except OSError as exc:
        raise ValueError(f"cannot write the picture {path}: {why_not_written(path, exc)}") \
            from None
    finally:
        pyplot().close(fig)
    return path
