"""Stubs for the compiled ``fastbg._core.policies`` (see pyx/fastbg/_core/policies.pyx)."""
from .eval import Policy

POLICIES: tuple[str, ...]

def make_policy(name: str) -> Policy: ...
