"""Jellyfish ``.mat`` files, the text format every backgammon program reads and writes.

A file is a header of ``; [Key "value"]`` lines, ``N point match`` (0 for a money session),
then each game: ``Game k``, a line with both names and their scores, and numbered rows, the
first player's entry on the left, the second's on the right::

     3 point match

     Game 1
     alice : 0                      bob : 0
      1)                             53: 8/3 6/3
      2) 62: 24/18 13/11             55: 13/8 13/8 6/1* 6/1
      3) 11:                          Doubles => 2
      4)  Takes                      31: 8/7 7/4
     ...
          Wins 4 points

An entry is a roll with its moves (``62: 24/18 13/11``; ``25`` is the bar, ``0`` off, ``*`` a
hit; a roll with no move is a roll that could not be played, or the last roll of a game
someone resigned), ``Doubles => n``, ``Beavers => n`` (``Raccoons => n`` too), ``Takes``,
``Drops`` or ``Wins n point(s)``. A row's single entry is the left player's when it starts in
the left half of the row (before column :data:`RIGHT_COLUMN`), else the right player's.

The format has no published specification; this module reads what GNU Backgammon writes
(``export match mat``, the layout above), with ``bar``/``off`` and ``(n)`` repeat counts
accepted in moves, and writes the same layout. Only the syntax is read here: the rules
(legal plays, cube, scores) are checked by :mod:`fastbg.game.matchfile`.
"""
from __future__ import annotations

import re

from .matchrecord import MatchFileError, RawAction, RawGame, RawMatch

__all__ = ["parse_mat", "format_mat", "RIGHT_COLUMN"]

#: A row's entry starting at or after this column (0-based) is the right player's; GNU
#: Backgammon starts left entries at column 5 and right ones at column 33.
RIGHT_COLUMN = 20

#: The column at which the writer starts the right player's entries (as GNU Backgammon).
_RIGHT_AT = 33

_TAG = re.compile(r'^;\s*\[\s*([^"\]]+?)\s*"(.*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(\d+)\s+points?\s+match\s*$", re.I)
_GAME = re.compile(r"^\s*game\s+(\d+)\s*$", re.I)
_SCORES = re.compile(r"^\s*(.*?\S)\s*:\s*(\d+)\s+(.*?\S)\s*:\s*(\d+)\s*$")
_ROW = re.compile(r"^\s*(\d+)\)(.*)$")
_ROLL = re.compile(r"^([1-6])([1-6]):$")
_MOVE = re.compile(r"^((?:bar|off|\d{1,2})\*?(?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$", re.I)
_CUBE_WORDS = {"doubles": "double", "beavers": "beaver", "raccoons": "beaver"}
_ANSWERS = {"takes": "take", "accepts": "take", "drops": "drop", "passes": "drop",
            "rejects": "drop"}
_TOKEN = re.compile(r"\S+")


def _point(text: str) -> int:
    t = text.rstrip("*").lower()
    if t == "bar":
        return 25
    if t == "off":
        return 0
    return int(t)


def _moves(token: str):
    """``(from, to, hit)`` legs of a move token (``13/7*``, ``25/20``, ``6/0``, ``8/5(2)``)."""
    m = _MOVE.match(token)
    if m is None:
        raise MatchFileError(f"{token!r} is not a move like 13/7, 25/20*, 6/0")
    parts = m.group(1).split("/")
    pts = [_point(p) for p in parts]
    for p in pts:
        if not 0 <= p <= 25:
            raise MatchFileError(f"move {token!r}: point {p} is not 0..25 (25 the bar, 0 off)")
    legs = []
    for (a, b), mark in zip(zip(pts, pts[1:]), parts[1:]):
        if b >= a:
            raise MatchFileError(f"move {token!r} goes from {a} to {b}, which is not forward")
        legs.append((a, b, mark.endswith("*")))
    n = int(m.group(2) or 1)
    if not 1 <= n <= 4:
        raise MatchFileError(f"move {token!r}: a repeat count is 1..4")
    return legs * n


def _entries(text: str, offset: int):
    """The entries of a row's text (after ``N)``): ``[(column, RawAction-without-player)]``."""
    tokens = [(m.start() + offset, m.group()) for m in _TOKEN.finditer(text)]
    out = []
    i = 0
    while i < len(tokens):
        col, tok = tokens[i]
        low = tok.lower()
        roll = _ROLL.match(tok)
        if roll:
            moves = []
            i += 1
            while i < len(tokens) and "/" in tokens[i][1]:
                moves += _moves(tokens[i][1])
                i += 1
            out.append((col, RawAction(0, "roll", (int(roll.group(1)), int(roll.group(2))),
                                       moves)))
            continue
        if low in _CUBE_WORDS:
            if i + 2 < len(tokens) and tokens[i + 1][1] == "=>" and tokens[i + 2][1].isdigit():
                out.append((col, RawAction(0, _CUBE_WORDS[low], value=int(tokens[i + 2][1]))))
                i += 3
                continue
            raise MatchFileError(f"{tok!r} is not followed by '=> n' (the new cube value)")
        if low in _ANSWERS:
            out.append((col, RawAction(0, _ANSWERS[low])))
            i += 1
            continue
        if low == "wins":
            if i + 2 < len(tokens) and tokens[i + 1][1].isdigit() and \
                    tokens[i + 2][1].lower() in ("point", "points"):
                out.append((col, RawAction(0, "win", value=int(tokens[i + 1][1]))))
                i += 3
                rest = " ".join(t for _, t in tokens[i:i + 3]).lower()
                if rest == "and the match":
                    i += 3
                continue
            raise MatchFileError(f"'Wins' is not followed by 'n points' in {text.strip()!r}")
        if "/" in tok:
            raise MatchFileError(f"the move {tok!r} follows no roll (a roll is written '62:')")
        if re.fullmatch(r"\d+:?", tok):
            raise MatchFileError(f"{tok!r} is not a roll (two dice 1..6 and a colon, like '62:')")
        raise MatchFileError(f"{tok!r} is not a roll, a move or a cube action")
    return out


def parse_mat(text: str, path=None) -> RawMatch:
    """Read the text of a Jellyfish ``.mat`` file.

    Parameters
    ----------
    text : str
        The whole file.
    path : str, optional
        The file's name, for error messages.

    Returns
    -------
    RawMatch
        The match as written: names, length, header tags (``Crawford``, ``Jacoby``,
        ``Beaver`` and ``CubeLimit`` read into the rules when present), and each game's
        scores and entries in order.

    Raises
    ------
    MatchFileError
        On the first line that is none of the above (naming the line, the game and the
        row), on a file with no ``point match`` line or no game, and on a game with no
        score line.
    """
    raw = RawMatch()
    length = None
    game = None
    pending_names = False
    rows = 0
    for k, line in enumerate(text.splitlines(), start=1):
        where = dict(path=path, game=len(raw.games) or None, line=k)
        s = line.rstrip()
        if not s.strip():
            continue
        try:
            if s.lstrip().startswith(";"):
                m = _TAG.match(s.strip())
                if m and game is None:
                    raw.tags[m.group(1)] = m.group(2)
                continue
            if pending_names:
                m = _SCORES.match(s)
                if m is None:
                    raise MatchFileError("expected the players' names and scores "
                                         "('alice : 0    bob : 0') after the Game line")
                names = (m.group(1), m.group(3))
                if len(raw.games) == 1:
                    raw.names = names
                elif names != raw.names:
                    raise MatchFileError(f"the players are {names[0]!r} and {names[1]!r}, "
                                         f"not {raw.names[0]!r} and {raw.names[1]!r} as in "
                                         "game 1")
                game.score = (int(m.group(2)), int(m.group(4)))
                pending_names = False
                continue
            m = _LENGTH.match(s)
            if m:
                if length is not None:
                    raise MatchFileError("a second 'point match' line: one match a file")
                length = int(m.group(1))
                continue
            m = _GAME.match(s)
            if m:
                if length is None:
                    raise MatchFileError("a game before the 'N point match' line")
                n = int(m.group(1))
                if n != len(raw.games) + 1:
                    raise MatchFileError(f"'Game {n}' where game {len(raw.games) + 1} was "
                                         "expected")
                game = RawGame(line=k)
                rows = 0
                raw.games.append(game)
                pending_names = True
                continue
            if game is None:
                raise MatchFileError(f"{s.strip()[:40]!r} is not a header line: a .mat file "
                                     "starts with 'N point match' and 'Game 1'")
            m = _ROW.match(s)
            if m:
                number, body, offset = int(m.group(1)), m.group(2), m.start(2)
                expected = rows + 1
                if number != expected:
                    where["move"] = number
                    raise MatchFileError(f"row {number} where row {expected} was expected "
                                         "(the rows of a game are numbered 1, 2, 3, ...)")
                rows = number
            else:
                number, body, offset = None, s, 0
            where["move"] = number
            entries = _entries(body, offset)
            if not entries:
                continue
            if number is None and any(e.kind != "win" for _, e in entries):
                raise MatchFileError(f"{s.strip()[:40]!r} is neither a numbered row "
                                     "('12) ...') nor a 'Wins' line")
            if len(entries) > 2:
                raise MatchFileError("more than two entries in a row (one a side)")
            if len(entries) == 2:
                sides = (0, 1)
            else:
                sides = (0 if entries[0][0] < RIGHT_COLUMN else 1,)
            for side, (_, e) in zip(sides, entries):
                e.player, e.move_number, e.line = side, number, k
                game.actions.append(e)
        except MatchFileError as exc:
            raise exc.located(**where) from None
    if length is None:
        raise MatchFileError("no 'N point match' line: not a Jellyfish .mat file", path=path)
    if not raw.games:
        raise MatchFileError("no game in the file", path=path)
    if pending_names:
        raise MatchFileError("the file ends after a 'Game' line", path=path,
                             game=len(raw.games))
    raw.match_length = length
    tags = {k.lower(): v.strip().lower() for k, v in raw.tags.items()}
    flags = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
    raw.crawford = flags.get(tags.get("crawford", ""))
    raw.jacoby = flags.get(tags.get("jacoby", ""))
    raw.beaver = flags.get(tags.get("beaver", tags.get("beavers", "")))
    if tags.get("cubelimit", "").isdigit():
        raw.max_cube = int(tags["cubelimit"])
    return raw


def _name(p: int) -> str:
    return str(p)


def _entry_text(a: RawAction) -> str:
    if a.kind == "roll":
        moves = " ".join(f"{_name(f)}/{_name(t)}{'*' if h else ''}" for f, t, h in a.moves or ())
        return f"{a.dice[0]}{a.dice[1]}: {moves}".rstrip() + (" " if not a.moves else "")
    if a.kind in ("double", "beaver"):
        return f" {'Doubles' if a.kind == 'double' else 'Beavers'} => {a.value}"
    if a.kind in ("take", "drop"):
        return " Takes" if a.kind == "take" else " Drops"
    raise MatchFileError(f"no .mat entry for a {a.kind!r} action")


def format_mat(raw: RawMatch) -> str:
    """Write a match as a Jellyfish ``.mat`` file, in GNU Backgammon's layout.

    Parameters
    ----------
    raw : RawMatch
        Each game's entries (``roll``, ``double``, ``beaver``, ``take``, ``drop``) and one
        ``win`` entry last; ``resign`` entries are not written (the format states only the
        points won: a game that ends before a side has borne off was resigned). The rules
        ``crawford``, ``jacoby``, ``beaver`` and ``max_cube`` are written as header tags
        when set (GNU Backgammon ignores them).

    Returns
    -------
    str
        The file's text.
    """
    lines = [f'; [{k} "{v}"]' for k, v in raw.tags.items()]
    rules = (("Crawford", raw.crawford), ("Jacoby", raw.jacoby), ("Beaver", raw.beaver))
    for key, value in rules:
        if value is not None and key not in raw.tags:
            lines.append(f'; [{key} "{"On" if value else "Off"}"]')
    if raw.max_cube is not None and "CubeLimit" not in raw.tags:
        lines.append(f'; [CubeLimit "{raw.max_cube}"]')
    lines += ["", f" {raw.match_length} point match", ""]
    for g, game in enumerate(raw.games, start=1):
        s0, s1 = game.score
        lines += [f" Game {g}", f"{f' {raw.names[0]} : {s0}':<{_RIGHT_AT - 2}} {raw.names[1]} : {s1}"]
        rows: list[list] = []
        wins = []
        for a in game.actions:
            if a.kind == "resign":
                continue
            if a.kind == "win":
                text = f"Wins {a.value} point{'s' if a.value != 1 else ''}"
                if a.player == 1 and rows and rows[-1][1] is None:
                    rows[-1][1] = " " + text     # on the row, as GNU Backgammon writes it
                else:
                    wins.append((a.player, text))
                continue
            if a.player == 0 or not rows or rows[-1][1] is not None:
                if a.player == 0:
                    rows.append([_entry_text(a), None])
                    continue
                rows.append([None, None])
            rows[-1][1] = _entry_text(a)
        for n, (left, right) in enumerate(rows, start=1):
            head = f"{n:3d}) "
            if right is None:
                lines.append(f"{head}{left or ''}")
            else:
                width = max(_RIGHT_AT - len(head), len(left or "") + 1)
                lines.append(f"{head}{left or '':<{width}}{right}")
        for player, text in wins:
            lines.append(("      " if player == 0 else " " * (_RIGHT_AT + 1)) + text)
        lines.append("")
    return "\n".join(lines) + "\n"
