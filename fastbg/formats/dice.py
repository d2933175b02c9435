"""Dice as text or numbers: ``"31"``, ``"3-1"``, ``(3, 1)`` (a leaf: plain values only)."""
from __future__ import annotations

import re

import numpy as np

__all__ = ["parse_dice", "check_dice"]


def parse_dice(text) -> tuple[int, int]:
    """Dice from ``"31"``, ``"3-1"``, ``"3 1"``, ``"3,1"`` (ASCII digits) or a pair of ints.

    Returns
    -------
    (d1, d2) : tuple of int
        Each in 1..6, in the order given.

    Raises
    ------
    ValueError
        If it is not two dice, or a die is out of range.
    """
    if isinstance(text, str):
        s = text.strip()
        # ASCII digits only: \d and int() also take other scripts' digits ('３１')
        m = re.fullmatch(r"([0-9])\s*[-, ]?\s*([0-9])", s, flags=re.ASCII)
        if not m:
            other = next((c for c in s if c.isdigit() and not c.isascii()), None)
            if other is not None:
                raise ValueError(f"bad dice {text!r}: dice are written with the digits 1-6, "
                                 f"not {other!r}")
            raise ValueError(f"bad dice {text!r}: write two dice like 31, 3-1 or '3 1'")
        vals = (int(m.group(1)), int(m.group(2)))
    else:
        try:
            vals = tuple(text)
        except TypeError:
            raise ValueError(f"bad dice {text!r}: two numbers 1..6 expected") from None
        if len(vals) != 2:
            raise ValueError(f"bad dice {text!r}: two numbers 1..6 expected")
        for d in vals:
            if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
                raise ValueError(f"bad dice {text!r}: a die is a whole number 1..6, got {d!r}")
        vals = tuple(int(d) for d in vals)
    for d in vals:
        if not 1 <= d <= 6:
            raise ValueError(f"die {d} out of range: dice are 1..6")
    return vals


def check_dice(dice):
    """Validate a roll: ``None`` (not rolled) or two dice 1..6.

    Parameters
    ----------
    dice : None or str or sequence of two int
        As :func:`parse_dice` accepts (``"31"``, ``(3, 1)``, ...), or ``None``.

    Returns
    -------
    None or tuple of (int, int)
        The dice in the order given.

    Raises
    ------
    ValueError
        If it is not two dice 1..6.
    """
    if dice is None:
        return None
    return parse_dice(dice)
