"""GNU Backgammon-style notation of plays: ``24/18 13/11``, ``bar/22*``, ``6/off``,
``8/5(2)``, ``24/18*/13``.

Points are numbered from the mover's side; 25 is the bar and 0 is off.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

__all__ = ["format_play", "parse_play", "point_name", "MAX_REPEAT"]

#: Largest repeat count ``(n)`` of a move: a double moves four checkers.
MAX_REPEAT = 4

#: (ASCII digits: \d and int() also take other scripts' digits, such as '８/５')
_TOKEN = re.compile(r"^(?P<path>(?:bar|off|\d+)\*?(?:/(?:bar|off|\d+)\*?)+)(?:\((?P<n>\d+)\))?$",
                    re.ASCII)


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
    # Paths through the same shown points are counted together, a hit marked if
    # any of them hit (GNU Backgammon writes 13/7*(2) when one of two checkers hits).
    groups: dict[tuple, list] = {}
    for start, legs in paths:
        shown = tuple(i for i, (_, hit) in enumerate(legs) if hit or i == len(legs) - 1)
        key = (start, tuple(legs[i][0] for i in shown))
        g = groups.setdefault(key, [[False] * len(shown), 0])
        g[0] = [a or legs[i][1] for a, i in zip(g[0], shown)]
        g[1] += 1
    if not groups:
        return "(no play)"
    out = []
    for (start, pts), (hits, count) in sorted(groups.items(), key=lambda kv: (-kv[0][0], -kv[0][1][-1], kv[0][1])):
        text = "/".join([point_name(start)] + [point_name(p) + ("*" if h else "") for p, h in zip(pts, hits)])
        out.append(text if count == 1 else f"{text}({count})")
    return " ".join(out)


def _point(text: str, play: str) -> int:
    text = text.rstrip("*")
    if text == "bar":
        return 25
    if text == "off":
        return 0
    p = int(text)
    if not 1 <= p <= 24:
        raise ValueError(f"bad play {play!r}: point {p} is not in 1..24 (bar is 'bar', off is 'off')")
    return p


def parse_play(text: str, hits: bool = False) -> list[tuple]:
    """The checker moves of a play written in GNU Backgammon-style notation.

    Parameters
    ----------
    text : str
        Moves separated by spaces: ``"24/18 13/11"``, ``"bar/22*"``, ``"6/off"``,
        ``"8/5(2)"``, ``"24/18*/13"``; hit marks are optional (a hit is a consequence of
        where the checker lands), the order of the moves does not matter.

    hits : bool, default False
        Also say, per leg, whether it was marked as a hit (``*`` after its landing point).

    Returns
    -------
    list of (int, int) or of (int, int, bool)
        ``(from_point, to_point)`` (and ``hit_marked`` with ``hits``) per checker path leg,
        mover's numbering (25 = bar, 0 = off), a path's legs in order, ``(n)`` repeated ``n``
        times.

    Raises
    ------
    ValueError
        Naming the token that is not a move, a move that goes backwards, or a repeat
        count ``(n)`` outside 1..4 (a roll moves at most four checkers, with a double).
    """
    moves: list[tuple] = []
    tokens = str(text).replace(",", " ").lower().split()
    if not tokens:
        raise ValueError("empty play: write it as e.g. '24/18 13/11'")
    for tok in tokens:
        m = _TOKEN.match(tok)
        if m is None:
            raise ValueError(f"bad play {text!r}: {tok!r} is not a move like 13/11, bar/22*, 6/off or 8/5(2)")
        parts = m.group("path").split("/")
        pts = [_point(x, text) for x in parts]
        marked = [x.endswith("*") for x in parts[1:]]
        if 0 in pts[:-1] or 25 in pts[1:]:
            raise ValueError(f"bad play {text!r}: in {tok!r} 'bar' can only start and 'off' only end a move")
        legs = list(zip(pts, pts[1:]))
        for a, b in legs:
            if b >= a:
                raise ValueError(f"bad play {text!r}: {tok!r} moves from {point_name(a)} to "
                                 f"{point_name(b)}, which is not forward")
        n = int(m.group("n") or 1)
        if not 1 <= n <= MAX_REPEAT:
            where = f" of {tok!r}" if tok != text.strip().lower() else ""
            raise ValueError(f"bad play {text!r}: the repeat count ({m.group('n')}){where} "
                             + (f"is more than a roll allows (a double moves at most "
                                f"{MAX_REPEAT} checkers, other rolls 2)" if n else "must be at least 1"))
        if hits:
            legs = [(a, b, h) for (a, b), h in zip(legs, marked)]
        moves += legs * n
    return moves
