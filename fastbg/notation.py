"""GNU Backgammon-style notation of plays: ``24/18 13/11``, ``bar/22*``, ``6/off``,
``8/5(2)``, ``24/18*/13``.

Points are numbered from the mover's side; 25 is the bar and 0 is off.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

__all__ = ["format_play", "point_name"]


def point_name(p: int) -> str:
    """``"bar"`` for 25, ``"off"`` for 0, else the point number."""
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def format_play(moves: Iterable[Sequence]) -> str:
    """Notation of a play given as single-die moves.

    Parameters
    ----------
    moves : iterable of (from_point, to_point, hit)
        In the order played, mover's numbering (25 = bar, 0 = off).

    Returns
    -------
    str
        Moves of one checker joined into a path (``13/7``; a hit on the way
        stays visible: ``24/18*/13``), equal paths counted (``8/5(2)``), paths
        sorted from the highest starting point down. An empty play is
        ``"(no play)"``.
    """
    paths: list[list] = []  # each: [start, [(landing, hit), ...]]
    for frm, to, hit in moves:
        frm, to, hit = int(frm), int(to), bool(hit)
        # Continue the path of a checker that stopped on `frm` without hitting
        # there (a checker that just hit keeps going too; its hit stays marked).
        for path in reversed(paths):
            if path[1][-1][0] == frm and frm != 0:
                path[1].append((to, hit))
                break
        else:
            paths.append([frm, [(to, hit)]])
    texts = []
    for start, legs in paths:
        parts = [point_name(start)]
        for i, (pt, hit) in enumerate(legs):
            last = i == len(legs) - 1
            if hit or last:
                parts.append(point_name(pt) + ("*" if hit else ""))
        texts.append(((start, legs[-1][0]), "/".join(parts)))
    if not texts:
        return "(no play)"
    counts = Counter(t for _, t in texts)
    order = sorted(set(texts), key=lambda kt: (-kt[0][0], -kt[0][1], kt[1]))
    out = []
    for _, t in order:
        out.append(t if counts[t] == 1 else f"{t}({counts[t]})")
    return " ".join(out)
