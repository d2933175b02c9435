"""The second evaluator's input layout, shared by both engines (``docs/evaluator.md``).

The names, order and denominators of the contact, extra and blot features, the widths of
the nets' inputs, the position classes and the crashed threshold. The pure-Python engine
(:mod:`fastbg.reference.features`) computes the features with these, and the nets' files
and quantisation (:mod:`fastbg.spec.nets`) read their widths and denominators; the
compiled core (``fastbg._core.features``) holds the same numbers in C, and the tests hold
the two to each other.
"""
from __future__ import annotations

import numpy as np

__all__ = ["N_FEATURES", "FEATURE_NAMES", "FEATURE_DENOMINATORS", "N_EXTRA_FEATURES",
           "EXTRA_FEATURE_NAMES", "EXTRA_FEATURE_DENOMINATORS", "LEGACY_CONTACT_INPUTS",
           "CONTACT_INPUTS", "RACE_INPUTS", "POSITION_CLASSES", "ESCAPE_BITS", "CRASHED_MAX",
           "N_BLOT_FEATURES", "BLOT_FEATURE_NAMES", "BLOT_FEATURE_DENOMINATORS"]

#: The contact features of one side, in the order of the specification's table.
FEATURE_NAMES = (
    "back_checker",
    "back_anchor",
    "forward_anchor",
    "anchors_back",
    "prime",
    "home_points",
    "blots",
    "pips",
    "break_contact",
    "free_pips",
    "timing",
    "escape_back",
    "containment",
    "containment_sq",
    "enter_fail",
    "enter_fail2",
    "shots",
    "double_shots",
    "pip_loss",
    "back_count",
)
N_FEATURES = len(FEATURE_NAMES)

#: The denominators ``D`` of the features, in :data:`FEATURE_NAMES` order (int64, read-only).
FEATURE_DENOMINATORS = np.array(
    [25, 24, 6, 2, 6, 6, 6, 167, 167, 100, 100, 36, 36, 1296, 36, 36, 36, 36, 3600, 15],
    dtype=np.int64,
)
FEATURE_DENOMINATORS.setflags(write=False)

#: The extra contact features of one side (the specification's second table), which
#: come after the first 20 of both sides in the contact net's inputs.
EXTRA_FEATURE_NAMES = (
    "mobility",
    "moment2",
    "backbone",
    "backgame",
    "backgame2",
    "off1",
    "off2",
    "off3",
)
N_EXTRA_FEATURES = len(EXTRA_FEATURE_NAMES)

#: The denominators ``D`` of the extra features, in :data:`EXTRA_FEATURE_NAMES` order.
EXTRA_FEATURE_DENOMINATORS = np.array([60, 400, 10, 100, 100, 3, 3, 9], dtype=np.int64)
EXTRA_FEATURE_DENOMINATORS.setflags(write=False)

#: The first contact net's width: Tesauro's 196 units, then side 0's and side 1's
#: 20 features (the shipped nets of generation 8 read these).
LEGACY_CONTACT_INPUTS = 196 + 2 * N_FEATURES
#: The full width: the legacy inputs, then side 0's and side 1's extra features. A
#: contact net reads the first ``w1.shape[0]`` of them (either width).
CONTACT_INPUTS = LEGACY_CONTACT_INPUTS + 2 * N_EXTRA_FEATURES
#: Per side: 96 point units, 15 one-hot checkers-off units, crossovers, pips.
RACE_INPUTS = 2 * (96 + 15 + 2)
#: The classes of :func:`position_class`, in the specification table's order.
POSITION_CLASSES = ("over", "bearoff", "race", "contact")

#: A mask of the escape table covers the 12 points ahead of a checker (bit k: k + 1 pips).
ESCAPE_BITS = 12

#: A side with at most this many checkers in play makes a contact position crashed
#: (:func:`is_crashed`).
CRASHED_MAX = 7


#: The blot features of a side bearing off against contact (``docs/evaluator.md``,
#: "Blot features"), in the order of the specification's table.
BLOT_FEATURE_NAMES = ("forced_blot", "fast_blot", "bearing_off", "safe_shots", "fast_shots")
N_BLOT_FEATURES = len(BLOT_FEATURE_NAMES)
#: The denominators ``D`` of the blot features, in :data:`BLOT_FEATURE_NAMES` order.
BLOT_FEATURE_DENOMINATORS = np.array([36, 36, 1, 1296, 1296], dtype=np.int64)
BLOT_FEATURE_DENOMINATORS.setflags(write=False)
