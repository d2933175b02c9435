# cython: language_level=3
"""The core's policies by name (mirror of :mod:`fastbg.reference.policies`)."""
from fastbg._core.eval cimport Policy


cdef Policy as_policy(object policy)
    # A Policy from a policy or its name (make_policy); TypeError for anything else.
