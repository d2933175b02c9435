"""Keyword arguments renamed in the public API, still accepted under their old names.

One name per concept (issue 37): the cubeless probabilities are ``probabilities`` in every
function of :mod:`fastbg.cube`, as :func:`fastbg.money_cube_decision` named them first. The
old keyword, ``probs=``, works for a while, with a DeprecationWarning; the cube's owner
(``owner=`` for ``cube_owner=``) is handled by the functions themselves, since its default
is a value.
"""
from __future__ import annotations

import functools
import warnings

__all__ = ["renamed_keyword"]


def renamed_keyword(old: str, new: str):
    """A decorator: the function takes ``old=`` as its argument ``new``, with a warning.

    Parameters
    ----------
    old : str
        The deprecated keyword.
    new : str
        The argument's name now.

    Returns
    -------
    callable
        The decorator. The decorated function keeps its signature and docstring
        (:func:`functools.wraps`); given ``old=...``, it warns (DeprecationWarning, naming
        the function and both names) and passes the value as ``new``; given both, a
        TypeError, as for any argument given twice.
    """
    def decorate(function):
        name = function.__qualname__

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                warnings.warn(f"{name}({old}=...) is deprecated: use {new}=...",
                              DeprecationWarning, stacklevel=2)
                if new in kwargs:
                    raise TypeError(f"{name}() got {new}= and {old}=: give {new} alone")
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)
        return wrapper
    return decorate
