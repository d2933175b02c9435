"""Our crashed rule, shared by train.py (``--net crashed``), candidates.py
(``--crashed-decisions``) and hook.py (a separate crashed net): the engines' own,
:func:`fastbg.reference.features.is_crashed` (docs/evaluator.md, "Position classes")."""
from __future__ import annotations

import numpy as np

from fastbg.reference.features import is_crashed as _is_crashed


def is_crashed(boards) -> np.ndarray:
    """:func:`fastbg.reference.features.is_crashed` of (n, 2, 25) or (2, 25) boards, always
    as a bool array of shape (n,)."""
    return np.atleast_1d(_is_crashed(np.asarray(boards).reshape(-1, 2, 25)))
