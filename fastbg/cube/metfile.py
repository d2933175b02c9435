"""Reading match equity tables: GNU Backgammon's MET XML format and the shipped tables.

Format (GNU Backgammon's ``met.dtd``, shipped in ``fastbg/data/met``): ``<met>`` holds
``<info>`` (``<name>``, ``<description>``, ``<length>``), one ``<pre-crawford-table>`` of
``<row>`` s of ``<me>`` values and one or two ``<post-crawford-table>`` s. The tables
themselves are :class:`fastbg.cube.met.MatchEquityTable`.
"""
from __future__ import annotations

import functools
import os
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

from .met import DEFAULT_MET, SHIPPED_METS, MatchEquityTable

__all__ = ["load_met"]


def _parse_values(row: ET.Element, where: str) -> list[float]:
    values = []
    for me in row.findall("me"):
        try:
            values.append(float((me.text or "").strip()))
        except ValueError:
            raise ValueError(f"{where}: not a number: {me.text!r}") from None
    if not values:
        raise ValueError(f"{where}: empty row")
    return values


def _check_type(table: ET.Element, where: str) -> None:
    kind = table.get("type", "explicit")
    if kind != "explicit":
        raise ValueError(f"{where} has type {kind!r}: only explicit tables are supported "
                         "(parametric tables such as 'mec' or 'zadeh' are computed by GNU "
                         "Backgammon, not stored)")


def _parse_met(data: bytes, source: str) -> MatchEquityTable:
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ValueError(f"{source}: not well-formed XML: {exc}") from None
    if root.tag != "met":
        raise ValueError(f"{source}: root element is <{root.tag}>, expected <met>")
    name = (root.findtext("info/name") or "").strip()
    description = " ".join((root.findtext("info/description") or "").split())
    length_text = (root.findtext("info/length") or "").strip()
    try:
        declared = int(length_text) if length_text else None
    except ValueError:
        raise ValueError(f"{source}: <length> is not an integer: {length_text!r}") from None

    pre_el = root.find("pre-crawford-table")
    if pre_el is None:
        raise ValueError(f"{source}: no <pre-crawford-table>")
    _check_type(pre_el, f"{source}: <pre-crawford-table>")
    rows = [_parse_values(r, f"{source}: pre-Crawford row {i + 1}")
            for i, r in enumerate(pre_el.findall("row"))]
    if not rows:
        raise ValueError(f"{source}: <pre-crawford-table> has no rows")
    n = len(rows)
    if any(len(r) != n for r in rows):
        raise ValueError(f"{source}: pre-Crawford table is not square ({n} rows of lengths "
                         f"{sorted({len(r) for r in rows})})")

    post: dict[int, list[float]] = {}
    post_els = root.findall("post-crawford-table")
    if not post_els:
        raise ValueError(f"{source}: no <post-crawford-table>")
    for el in post_els:
        who = el.get("player", "both").strip()
        where = f"{source}: <post-crawford-table player={who!r}>"
        _check_type(el, where)
        players = {"both": (0, 1), "0": (0,), "1": (1,)}.get(who)
        if players is None:
            raise ValueError(f"{where}: player must be 'both', '0' or '1'")
        rows_el = el.findall("row")
        if len(rows_el) != 1:
            raise ValueError(f"{where}: expected one <row>, found {len(rows_el)}")
        values = _parse_values(rows_el[0], where)
        for k in players:
            if k in post:
                raise ValueError(f"{where}: post-Crawford table of player {k} given twice")
            post[k] = values
    if set(post) != {0, 1}:
        raise ValueError(f"{source}: post-Crawford table missing for player "
                         f"{({0, 1} - set(post)).pop()}")
    m = min(len(post[0]), len(post[1]))
    try:
        return MatchEquityTable(rows, [post[0][:m], post[1][:m]], name=name,
                                description=description, source=source,
                                declared_length=declared)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


@functools.lru_cache(maxsize=None)
def _load_shipped(name: str) -> MatchEquityTable:
    res = resources.files("fastbg").joinpath("data", "met", f"{name}.xml")
    return _parse_met(res.read_bytes(), f"fastbg/data/met/{name}.xml")


def load_met(path_or_name: str | os.PathLike | MatchEquityTable = DEFAULT_MET
             ) -> MatchEquityTable:
    """Load a match equity table in GNU Backgammon's MET XML format.

    Parameters
    ----------
    path_or_name : str, path-like or MatchEquityTable
        A file path, or the name of a shipped table (:data:`SHIPPED_METS`, case-insensitive,
        ``.xml`` optional), or a table (returned as is). An existing file wins over a shipped
        name. Default: Kazaross-XG2.

    Returns
    -------
    MatchEquityTable
        Shipped tables are parsed once and shared (tables are immutable).

    Raises
    ------
    ValueError
        If the name is neither a file nor a shipped table (a directory is named as such),
        or the file is not a valid MET:
        not well-formed XML, no pre- or post-Crawford table, a non-square pre-Crawford table,
        a value that is not a number in [0, 1], or a parametric table type ("mec", "zadeh").
    OSError
        If an existing file cannot be read.

    Notes
    -----
    Format (GNU Backgammon's ``met.dtd``, shipped in ``fastbg/data/met``): ``<met>`` holds
    ``<info>`` (``<name>``, ``<description>``, ``<length>``), one ``<pre-crawford-table>`` of
    ``<row>`` s of ``<me>`` values (row i, column j: MWC of the side needing i+1 against j+1)
    and one or two ``<post-crawford-table>`` s (one row: MWC of the trailer needing j+1
    against a 1-away leader; ``player="both"``, or ``"0"`` and ``"1"``).
    """
    if isinstance(path_or_name, MatchEquityTable):
        return path_or_name
    try:
        text = os.fspath(path_or_name)
    except TypeError:
        raise ValueError(f"expected a path or table name, got {path_or_name!r}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text.strip():    # Path('') is the current directory
        raise ValueError("the match equity table's name is empty: give a path or one of the "
                         f"shipped tables {', '.join(SHIPPED_METS)}")
    path = Path(text)
    if path.is_file():
        return _parse_met(path.read_bytes(), str(path))
    stem = text[:-4] if text.lower().endswith(".xml") else text
    for name in SHIPPED_METS:
        if stem.lower() == name.lower():
            return _load_shipped(name)
    if path.is_dir():
        raise ValueError(f"match equity table {text!r} is a directory, not a MET XML file")
    if path.exists():
        raise ValueError(f"match equity table {text!r} is not a regular file")
    raise ValueError(f"unknown match equity table {text!r}: no such file, and not one of the "
                     f"shipped tables {', '.join(SHIPPED_METS)}")

