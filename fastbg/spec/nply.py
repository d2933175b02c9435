"""n-ply evaluation: how plies count, and the move filters that choose which plays go deeper.

Both engines read this (the core's ``EvalPolicy.nply_probabilities`` and
``EvalPolicy.rank_nply``, and their pure-Python twins in :mod:`fastbg.reference.evaluator`),
so they prune the same plays and give the same bits.

Plies
-----
Counted as GNU Backgammon counts them (manual, "The depth to search and plies"). The
value of a position (side on roll, before its roll) at

* **0 ply** is the evaluator's own (the nets, or the bear-off and small-race databases
  where the 0-ply evaluator reads them);
* **n ply** (n >= 1) is the average over the 21 rolls (weight 1 a double, 2 else, summed
  in the order ``d1 = 1..6``, ``d2 = 1..d1``, then divided by 36) of the value, at n - 1
  ply and flipped to the roller's side, of the position after the roller's best **0-ply**
  play for that roll (the evaluator's 0-ply choice, as everywhere it chooses a play); a
  roll with no legal play leaves the position as it is (the turn passes); a play that
  bears off the last checker has its exact result.

A play's value at n ply is that of the position after it, the opponent on roll, at n ply:
at 1 ply the average over the opponent's 21 rolls of the 0-ply value after the
opponent's best reply.

Move filters
------------
Ranking the plays of a roll at n ply values every play at 0 ply and then, level by level,
keeps only the promising ones for the deeper (and dearer) evaluations: the shape of GNU
Backgammon's *move filters*. A filter level for the plays valued at ``L`` ply keeps, of
those plays ranked best first, the first ``accept`` and then up to ``extra`` more while
each is within ``threshold`` equity of the best (``value >= best - threshold``); the best
play is always kept. A level may be skipped (``None``): its plays are neither valued at
that ply nor pruned, and go on whole to the next level. When a level leaves a single play
the ranking stops (the choice is made: GNU Backgammon's ``hint`` stops too, and shows that
play at the ply it reached). GNU Backgammon's manual
("Introduction to move filters",
https://www.gnu.org/software/gnubg/manual/html_node/Introduction-to-move-filters.html):
"A move filter for a given ply, say, 2-ply, consists of four parameters for each sub ply:
whether to analyze at all at this sub ply, the number of moves always accepted at the
given level, the number of extra moves to add, the threshold for adding extra moves. [...]
The predefined setting Normal has: accept 0 moves and add up to 8 moves within 0.16 at
0-ply, and no pruning at 1-ply." Its "Defining move filters" page gives the setting
Large (used by the Supremo level) as "Add extra 16 moves within 0.320" at 0 ply. The
3-ply levels below are what GNU Backgammon 1.07.001 prints for these settings
(``show evaluation``: "keep the first 0 2-ply moves and up to 2 more moves within equity
0.04" in Normal, its default for ``eval`` and ``hint``; "up to 4 more moves within
equity 0.08" in Large, its default for analysis). No code of GNU Backgammon is used.

A filter here is one sequence of levels, level ``L`` for the plays valued at ``L`` ply;
an n-ply ranking uses its first n levels (GNU Backgammon's presets are nested this way:
its 3-ply filter begins with its 2-ply one).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

__all__ = ["MAX_PLY", "FilterLevel", "MoveFilter", "NORMAL", "LARGE", "KEEP_ALL",
           "DEFAULT_FILTER", "PRESETS", "check_ply", "filter_arrays", "survivors", "CACHE_BITS",
           "move_filter"]

#: The deepest evaluation offered (3 ply: about 21**3 decisions a position).
MAX_PLY = 3

#: The core's evaluation cache for one call of an n-ply evaluation at 2 ply or more: a
#: direct-mapped table of ``2**CACHE_BITS`` positions (board and ply -> five
#: probabilities; about 100 bytes each, 1.6 MB), made for the call and freed after it,
#: so threads never share one. 0- and 1-ply calls need none.
CACHE_BITS = 14


def check_ply(ply) -> int:
    """``ply`` as an int in ``0..MAX_PLY``.

    Raises
    ------
    ValueError
        For a ply outside 0..3, or one that is not a whole number (a bool too).
    """
    if isinstance(ply, bool):
        raise ValueError(f"ply must be 0, 1, 2 or 3, got {ply!r}")
    try:
        p = operator.index(ply)
    except TypeError:
        raise ValueError(f"ply must be 0, 1, 2 or 3, got {ply!r}") from None
    if not 0 <= p <= MAX_PLY:
        raise ValueError(f"ply must be 0, 1, 2 or 3, got {ply!r}")
    return p


@dataclass(frozen=True)
class FilterLevel:
    """One level of a move filter: of the plays valued at this ply, ranked best first,
    keep the first ``accept`` and up to ``extra`` more within ``threshold`` of the best.

    Attributes
    ----------
    accept : int
        Plays kept whatever their equity, >= 0.
    extra : int
        Further plays kept at most, >= 0.
    threshold : float
        Equity (cubeless, points per unit cube) behind the best within which an extra
        play is kept, >= 0, finite.
    """

    accept: int
    extra: int
    threshold: float

    def __post_init__(self):
        for name in ("accept", "extra"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"a filter level's {name} must be a whole number >= 0, got {v!r}")
            object.__setattr__(self, name, int(v))
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, (int, float, np.floating, np.integer)) \
                or not 0 <= float(t) < float("inf"):
            raise ValueError(f"a filter level's threshold must be a finite equity >= 0, got {t!r}")
        object.__setattr__(self, "threshold", float(t))

    def as_dict(self) -> dict:
        return {"accept": self.accept, "extra": self.extra, "threshold": self.threshold}


@dataclass(frozen=True)
class MoveFilter:
    """GNU Backgammon-style move filter: per ply, which plays go on to a deeper evaluation.

    Attributes
    ----------
    levels : tuple of (FilterLevel or None), length MAX_PLY
        ``levels[L]`` prunes the plays valued at ``L`` ply before the next evaluation;
        ``None`` skips level ``L`` (no evaluation at ``L`` ply, no pruning). An n-ply
        ranking uses ``levels[:n]``. Given as ``(accept, extra, threshold)`` tuples,
        dicts or :class:`FilterLevel`; fewer than MAX_PLY levels are padded with ``None``.

    Examples
    --------
    >>> MoveFilter([(0, 4, 0.08)]).levels[0]
    FilterLevel(accept=0, extra=4, threshold=0.08)
    """

    levels: tuple

    def __post_init__(self):
        raw = self.levels
        if isinstance(raw, (str, bytes, dict)) or not hasattr(raw, "__iter__"):
            raise ValueError(f"a move filter is a sequence of levels, got {raw!r}")
        raw = list(raw)
        if len(raw) > MAX_PLY:
            raise ValueError(f"a move filter has at most {MAX_PLY} levels (0..{MAX_PLY - 1} ply), "
                             f"got {len(raw)}")
        out = []
        for lv in raw + [None] * (MAX_PLY - len(raw)):
            if lv is None or isinstance(lv, FilterLevel):
                out.append(lv)
            elif isinstance(lv, dict):
                out.append(FilterLevel(**lv))
            else:
                try:
                    a, e, t = lv
                except (TypeError, ValueError):
                    raise ValueError("a filter level is (accept, extra, threshold) or None, "
                                     f"got {lv!r}") from None
                out.append(FilterLevel(a, e, t))
        object.__setattr__(self, "levels", tuple(out))

    def as_dict(self) -> dict:
        """``{"levels": [{accept, extra, threshold} or None, ...]}`` (JSON-ready; what
        ``--json`` reports and :meth:`from_dict` reads)."""
        return {"levels": [None if lv is None else lv.as_dict() for lv in self.levels]}

    @classmethod
    def from_dict(cls, d: dict) -> "MoveFilter":
        return cls(d["levels"])

    def describe(self, ply: int) -> str:
        """The levels an n-ply ranking uses, in words."""
        parts = []
        for L, lv in enumerate(self.levels[:ply]):
            if lv is None:
                parts.append(f"{L}-ply: no pruning")
            else:
                parts.append(f"{L}-ply: first {lv.accept} and up to {lv.extra} more within "
                             f"{lv.threshold:g}")
        return "; ".join(parts) if parts else "none (0 ply)"


#: GNU Backgammon's "Normal" filter (its default for ``eval`` and ``hint``): at 0 ply
#: up to 8 plays within 0.16 of the best, no pruning at 1 ply, at 2 ply up to 2 within 0.04.
NORMAL = MoveFilter([(0, 8, 0.16), None, (0, 2, 0.04)])
#: GNU Backgammon's "Large" filter (its default for analysis; the Supremo level's): 16
#: within 0.32 at 0 ply, no pruning at 1 ply, 4 within 0.08 at 2 ply.
LARGE = MoveFilter([(0, 16, 0.32), None, (0, 4, 0.08)])
#: No pruning: every play is valued at the full ply (slow at 2 ply and more).
KEEP_ALL = MoveFilter([None] * MAX_PLY)
#: The filter of :func:`fastbg.rank_plays`, ``fastbg moves --eval`` and the engines'
#: ``rank_nply`` when none is given.
DEFAULT_FILTER = NORMAL

#: The filters by name (``fastbg moves --eval --filter NAME``).
PRESETS = {"normal": NORMAL, "large": LARGE, "all": KEEP_ALL}


def move_filter(f=None) -> MoveFilter:
    """A :class:`MoveFilter` from ``None`` (:data:`DEFAULT_FILTER`), a preset name
    (``"normal"``, ``"large"``, ``"all"``), a filter, its dict form or a sequence of levels.

    Raises
    ------
    ValueError
        For an unknown name or a malformed filter.
    """
    if f is None:
        return DEFAULT_FILTER
    if isinstance(f, MoveFilter):
        return f
    if isinstance(f, str):
        if f not in PRESETS:
            raise ValueError(f"unknown move filter {f!r}: choose one of {', '.join(PRESETS)}")
        return PRESETS[f]
    if isinstance(f, dict):
        if "levels" not in f:
            raise ValueError(f"a move filter's dict has 'levels', got {f!r}")
        return MoveFilter.from_dict(f)
    return MoveFilter(f)


def filter_arrays(f, ply: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first ``ply`` levels of a filter as the engines read them.

    Returns
    -------
    accept : numpy.ndarray of int32, shape (MAX_PLY,)
        -1 for a skipped level (and for the levels at ``ply`` and beyond).
    extra : numpy.ndarray of int32, shape (MAX_PLY,)
    threshold : numpy.ndarray of float64, shape (MAX_PLY,)
    """
    f = move_filter(f)
    ply = check_ply(ply)
    accept = np.full(MAX_PLY, -1, dtype=np.int32)
    extra = np.zeros(MAX_PLY, dtype=np.int32)
    thr = np.zeros(MAX_PLY, dtype=np.float64)
    for L, lv in enumerate(f.levels[:ply]):
        if lv is not None:
            accept[L], extra[L], thr[L] = min(lv.accept, 1 << 20), min(lv.extra, 1 << 20), lv.threshold
    return accept, extra, thr


def survivors(values, accept: int, extra: int, threshold: float) -> int:
    """How many plays a filter level keeps of ``values`` (equities, best first): the first
    ``accept``, then up to ``extra`` more while ``value >= values[0] - threshold``; at
    least 1. The core's ``filter_count``, comparison for comparison."""
    m = len(values)
    count = min(m, accept)
    limit = accept + extra
    while count < m and count < limit and values[count] >= values[0] - threshold:
        count += 1
    return max(count, 1) if m else 0
