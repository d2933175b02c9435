"""Why a file cannot be written, in the same words from every command.

A picture (:mod:`fastbg.game.picture`), a plot (:mod:`fastbg.research.plots`) and a results
store (:mod:`fastbg.rollouts.store`) refused a path in a directory that does not exist in
three ways ("No such file or directory", "no directory D", "there is no directory D"); they
now all say ``cannot <verb> the <thing> PATH: there is no directory D``.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

__all__ = ["missing_directory", "why_not_written"]


def missing_directory(path) -> str | None:
    """The reason a new file ``path`` cannot be made if its directory does not exist.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.

    Returns
    -------
    str or None
        ``"there is no directory D"`` (``D`` the directory part of ``path``), or None when
        that directory exists.

    Examples
    --------
    >>> missing_directory("/nonexistent/a.png")
    'there is no directory /nonexistent'
    >>> missing_directory("a.png") is None
    True
    """
    parent = Path(path).parent
    return None if parent.is_dir() else f"there is no directory {parent}"


def why_not_written(path, exc: OSError) -> str:
    """The reason, in words, that writing or creating ``path`` raised ``exc``.

    Parameters
    ----------
    path : str or os.PathLike
        The file that could not be written.
    exc : OSError
        What the attempt raised.

    Returns
    -------
    str
        :func:`missing_directory`'s ``"there is no directory D"`` when the directory is
        missing; ``"the directory D takes no new files (No such file or directory)"`` when
        it exists but the system says there is no such file (``/proc`` on Linux); else the
        system's own words (``"Permission denied"``).
    """
    missing = missing_directory(path) if exc.errno == errno.ENOENT else None
    if missing is not None:
        return missing
    why = exc.strerror or str(exc)
    p = Path(path)
    if exc.errno == errno.ENOENT and not os.path.lexists(p):
        return f"the directory {p.parent} takes no new files ({why})"
    return why
