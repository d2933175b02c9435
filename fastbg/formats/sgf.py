"""GNU Backgammon's ``.sgf`` files: the Smart Game Format, backgammon (``GM[6]``).

An SGF file is a collection of game trees ``(;root;node;node...)``, each node a list of
properties ``ID[value][value]``. GNU Backgammon saves a match (or a money session) as one
tree a game (red-bean.com/sgf/backgammon.html describes the backgammon properties; the rest
of this docstring is what the program writes, which these functions follow):

- the root node: ``GM[6]``, ``MI[length:L][game:k][ws:S][bs:S]`` (match length, 0 for money;
  GNU Backgammon numbers games from 0; White's and Black's score before the game), the
  names ``PW`` (player 0, White) and ``PB`` (player 1, Black), the rules ``RU``
  (``Crawford``, ``Crawford:CrawfordGame`` in the Crawford game, ``Jacoby``) and the result
  ``RE`` (``W+4``: White won 4 points; ``W+4R``: by resignation);
- a node a turn: ``W[62xrmk]`` (the dice, then a from/to letter pair a checker move:
  ``a`` is White's 1-point and Black's 24-point, ``x`` White's 24 and Black's 1, ``y`` the
  bar, ``z`` off), ``B[11]`` (a roll that could not be played), ``B[double]``,
  ``W[take]``, ``W[drop]`` (a double answered by a double is a beaver);
- a roll left unplayed when the game was resigned: a node ``PL[B]DI[33]``.

Properties that do not change the game (GNU Backgammon's analysis ``A``, ``DA``, marks
``MR``, comments ``C``, ...) are skipped. Variations (a tree inside a tree) and positions
set up by hand (``AB``, ``AW``, ``AE``, a cube set by ``CV``/``CO``) are refused. Only the
syntax is read here; :mod:`fastbg.game.matchfile` checks the rules.
"""
from __future__ import annotations

import re

from .matchrecord import MatchFileError, RawAction, RawGame, RawMatch

__all__ = ["parse_sgf", "format_sgf", "parse_collection"]

_PLAYERS = {"W": 0, "B": 1}
_COLOURS = "WB"
_IDENT = re.compile(r"[A-Za-z]+")
_SETUP = ("AB", "AW", "AE", "CV", "CO")
_RESULT = re.compile(r"^([WB])\+(\d+)(R?)$")


def parse_collection(text: str, path=None) -> list:
    """The game trees of an SGF text, each a list of nodes.

    Returns
    -------
    list of list of (dict, int)
        Per tree its nodes in order, each ``(properties, line)``: ``properties`` maps an
        identifier to the list of its values (escapes undone).

    Raises
    ------
    MatchFileError
        On text that is not SGF (naming the line): no ``(;``, an unclosed value or tree, a
        property without a value, a variation.
    """
    trees = []
    i, n, line = 0, len(text), 1

    def err(why):
        return MatchFileError(why, path=path, line=line)

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        if c.isspace():
            i += 1
            continue
        if c != "(":
            raise err(f"{text[i:i + 20]!r} outside a game tree: an SGF file is a list of "
                      "'(;...)' trees")
        i += 1
        nodes = []
        while True:
            while i < n and text[i].isspace():
                line += text[i] == "\n"
                i += 1
            if i >= n:
                raise err("the file ends inside a game tree (a ')' is missing)")
            c = text[i]
            if c == ")":
                i += 1
                break
            if c == "(":
                raise err("a variation (a game tree inside a game tree): only the moves "
                          "played are read, one line of play a game")
            if c != ";":
                raise err(f"{text[i:i + 20]!r} where a node (';') was expected")
            i += 1
            props: dict = {}
            node_line = line
            while True:
                while i < n and text[i].isspace():
                    line += text[i] == "\n"
                    i += 1
                m = _IDENT.match(text, i)
                if m is None:
                    break
                # (FF[3] allowed lower-case letters in identifiers, GaMe for GM)
                ident = "".join(ch for ch in m.group() if ch.isupper())
                if not ident:
                    raise err(f"{m.group()!r} is not a property identifier (upper-case letters)")
                i = m.end()
                values = []
                while True:
                    while i < n and text[i].isspace():
                        line += text[i] == "\n"
                        i += 1
                    if i >= n or text[i] != "[":
                        break
                    i += 1
                    buf = []
                    while True:
                        if i >= n:
                            raise err(f"the file ends inside the value of {ident}")
                        ch = text[i]
                        if ch == "\\" and i + 1 < n:
                            line += text[i + 1] == "\n"
                            buf.append(text[i + 1])
                            i += 2
                            continue
                        if ch == "]":
                            i += 1
                            break
                        line += ch == "\n"
                        buf.append(ch)
                        i += 1
                    values.append("".join(buf))
                if not values:
                    raise err(f"property {m.group()!r} has no value")
                props.setdefault(ident, []).extend(values)
            nodes.append((props, node_line))
        if not nodes:
            raise err("an empty game tree '()'")
        trees.append(nodes)
    if not trees:
        raise MatchFileError("no game tree: not an SGF file", path=path)
    return trees


def _point(letter: str, player: int) -> int:
    k = ord(letter) - ord("a")
    if k == 24:
        return 25
    if k == 25:
        return 0
    return k + 1 if player == 0 else 24 - k


def _letter(point: int, player: int) -> str:
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _move(value: str, player: int) -> RawAction:
    v = value.strip()
    low = v.lower()
    if low in ("double", "take", "drop"):
        return RawAction(player, low)
    m = re.fullmatch(r"([1-6])([1-6])([a-z]*)", v)
    if m is None:
        raise MatchFileError(f"{v!r} is not a move (dice then from/to letters a..z, like "
                             "'62xrmk'), 'double', 'take' or 'drop'")
    letters = m.group(3)
    if len(letters) % 2 or len(letters) > 8:
        raise MatchFileError(f"{v!r}: the moves are pairs of letters, at most four")
    moves = [(_point(a, player), _point(b, player), False)
             for a, b in zip(letters[::2], letters[1::2])]
    for a, b, _ in moves:
        if b >= a:
            raise MatchFileError(f"{v!r}: a move from {a} to {b} is not forward")
    return RawAction(player, "roll", (int(m.group(1)), int(m.group(2))), moves)


def _int(text: str, what: str) -> int:
    t = text.strip()
    if not t.isdigit():
        raise MatchFileError(f"{what} {text!r} is not a whole number")
    return int(t)


def parse_sgf(text: str, path=None) -> RawMatch:
    """Read the text of a GNU Backgammon ``.sgf`` file (a match, a session or a game).

    Parameters
    ----------
    text : str
        The whole file.
    path : str, optional
        The file's name, for error messages.

    Returns
    -------
    RawMatch
        Names and match length (the first game's), each game's score, Crawford mark,
        result and entries.

    Raises
    ------
    MatchFileError
        Naming the game and node: not SGF, not backgammon (``GM`` other than 6), games of
        different match lengths or players, a set-up position, two moves in a node, a move
        that cannot be read, a result that is not ``W+n``, ``B+n`` (``R`` for a
        resignation).
    """
    trees = parse_collection(text, path)
    raw = RawMatch()
    first = 0
    for g, nodes in enumerate(trees, start=1):
        root, root_line = nodes[0]
        where = dict(path=path, game=g, line=root_line)
        try:
            gm = root.get("GM", ["1"])[0].strip()
            if gm != "6":
                raise MatchFileError(f"GM[{gm}] is not backgammon (GM[6]): "
                                     + ("a Go file" if gm == "1" else "another game's file"))
            info = {}
            for item in root.get("MI", []):
                key, _, value = item.partition(":")
                info[key.strip().lower()] = value
            length = _int(info.get("length", "0"), "the match length")
            names = (root.get("PW", ["White"])[0], root.get("PB", ["Black"])[0])
            rules = [r.strip().lower() for v in root.get("RU", []) for r in v.split(":")]
            if g == 1:
                raw.match_length, raw.names = length, names
                raw.crawford = "crawford" in rules if length else None
                raw.jacoby = "jacoby" in rules if not length else None
                raw.beaver = True if "beaver" in rules or "beavers" in rules else None
            elif length != raw.match_length:
                raise MatchFileError(f"match length {length}, not {raw.match_length} as in game 1")
            elif names != raw.names:
                raise MatchFileError(f"players {names[0]!r} and {names[1]!r}, not "
                                     f"{raw.names[0]!r} and {raw.names[1]!r} as in game 1")
            if "game" in info:
                number = _int(info["game"], "the game number")
                if g == 1:
                    first = number
                elif number != first + g - 1:
                    raise MatchFileError(f"MI[game:{number}] where game {first + g - 1} was "
                                         "expected (games numbered in order)")
            game = RawGame(line=root_line)
            if "ws" in info or "bs" in info:
                game.score = (_int(info.get("ws", "0"), "White's score"),
                              _int(info.get("bs", "0"), "Black's score"))
            if length:
                game.crawford = "crawfordgame" in rules
            if "RE" in root:
                m = _RESULT.match(root["RE"][0].strip())
                if m is None:
                    raise MatchFileError(f"result RE[{root['RE'][0]}] is not W+n or B+n "
                                         "(R after n for a resignation)")
                game.result = (_PLAYERS[m.group(1)], int(m.group(2)), bool(m.group(3)))
            for ident in _SETUP:
                if ident in root and not (ident == "CV" and root[ident] == ["1"]):
                    raise MatchFileError(f"the game starts from a set-up position or cube "
                                         f"({ident}[...]): only games from the start are read")
            if "B" in root or "W" in root:
                nodes = [({k: v for k, v in root.items() if k in "BW"}, root_line)] + nodes[1:]
            else:
                nodes = nodes[1:]
            for number, (props, line) in enumerate(nodes, start=1):
                where.update(move=number, line=line)
                moves = [k for k in ("B", "W") if k in props]
                if len(moves) > 1 or any(len(props[k]) > 1 for k in moves):
                    raise MatchFileError("two moves in one node")
                for ident in _SETUP:
                    if ident in props:
                        raise MatchFileError(f"the position is edited in the middle of the "
                                             f"game ({ident}[...])")
                if moves:
                    a = _move(props[moves[0]][0], _PLAYERS[moves[0]])
                elif "DI" in props:
                    pl = props.get("PL", [""])[0].strip().upper()
                    if pl not in _PLAYERS:
                        raise MatchFileError("dice set (DI) without the player on roll (PL[W] "
                                             "or PL[B])")
                    d = props["DI"][0].strip()
                    if not re.fullmatch(r"[1-6][1-6]", d):
                        raise MatchFileError(f"DI[{d}] is not two dice 1..6")
                    a = RawAction(_PLAYERS[pl], "roll", (int(d[0]), int(d[1])), None)
                else:
                    continue
                a.move_number, a.line = number, line
                game.actions.append(a)
            where.pop("move", None)
            raw.games.append(game)
        except MatchFileError as exc:
            raise exc.located(**where) from None
    return raw


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def format_sgf(raw: RawMatch, application: str = "fastbg") -> str:
    """Write a match as a GNU Backgammon ``.sgf`` file: one game tree a game.

    Parameters
    ----------
    raw : RawMatch
        Each game with ``score``, ``result`` ``(winner, points, resigned)`` and entries
        (``roll``, ``double``, ``beaver``, ``take``, ``drop``; ``win`` and ``resign`` are in
        the result). A roll with ``moves is None`` (left unplayed) is written as a
        ``PL``/``DI`` node.
    application : str
        The ``AP`` property.

    Returns
    -------
    str
        The file's text.
    """
    out = []
    for g, game in enumerate(raw.games):
        root = ["FF[4]GM[6]CA[UTF-8]", f"AP[{_escape(application)}]"]
        ws, bs = game.score
        root.append(f"MI[length:{raw.match_length}][game:{g}][ws:{ws}][bs:{bs}]")
        root.append(f"PW[{_escape(raw.names[0])}]PB[{_escape(raw.names[1])}]")
        rules = []
        if raw.match_length and raw.crawford:
            rules.append("Crawford:CrawfordGame" if game.crawford else "Crawford")
        if not raw.match_length and raw.jacoby:
            rules.append("Jacoby")
        if rules:
            root.append(f"RU[{':'.join(rules)}]")
        if game.result is not None:
            w, pts, resigned = game.result
            root.append(f"RE[{_COLOURS[w]}+{pts}{'R' if resigned else ''}]")
        nodes = ["(;" + "".join(root)]
        for a in game.actions:
            c = _COLOURS[a.player]
            if a.kind == "roll":
                dice = f"{a.dice[0]}{a.dice[1]}"
                if a.moves is None:
                    nodes.append(f";PL[{c}]DI[{dice}]")
                else:
                    letters = "".join(_letter(f, a.player) + _letter(t, a.player)
                                      for f, t, _ in a.moves)
                    nodes.append(f";{c}[{dice}{letters}]")
            elif a.kind in ("double", "beaver"):
                nodes.append(f";{c}[double]")
            elif a.kind in ("take", "drop"):
                nodes.append(f";{c}[{a.kind}]")
            elif a.kind in ("win", "resign"):
                continue
            else:
                raise MatchFileError(f"no .sgf node for a {a.kind!r} action")
        out.append("\n".join(nodes) + ")\n")
    return "".join(out)
