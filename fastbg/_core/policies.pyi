"""Stubs for the compiled ``fastbg._core.policies`` (see pyx/fastbg/_core/policies.pyx)."""
from typing import Sequence

from fastbg.spec.nply import MoveFilter

from .eval import Policy

POLICIES: tuple[str, ...]

def make_policy(name: str) -> Policy: ...
def checker_policy(
    name: str, ply: int = 0, move_filter: MoveFilter | str | Sequence | None = None
) -> Policy: ...
