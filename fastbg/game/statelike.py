"""What the Match ID and XGID encoders need of a game state: :class:`MatchStateLike`.

:mod:`fastbg.game.ids` writes a state as GNU Backgammon's Match ID or eXtreme Gammon's XGID,
and :class:`~fastbg.game.matchstate.MatchState` calls those encoders for its ``to_xgid``,
``to_match_id`` and ``to_gnubg_id`` (and decodes the IDs into itself). The encoders therefore
name the state by this protocol, not by the class, so that neither module imports the other
both ways.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["MatchStateLike"]


@runtime_checkable
class MatchStateLike(Protocol):
    """The attributes of :class:`~fastbg.game.matchstate.MatchState` that the encoders read.

    ``isinstance(state, MatchStateLike)`` checks that each is there; the meaning of each is
    :class:`~fastbg.game.matchstate.MatchState`'s.
    """

    cube: int
    cube_owner: str
    match_length: int
    score: tuple
    crawford: bool
    jacoby: bool
    beaver: bool
    max_cube: int

    @property
    def is_money(self) -> bool: ...

    @property
    def may_double(self) -> bool: ...

    @property
    def why_not_double(self) -> str | None: ...
