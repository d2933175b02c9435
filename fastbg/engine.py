"""Choosing an engine: the compiled Cython core or the pure-Python reference.

Both engines expose the same functions (see :mod:`fastbg.reference` for the
contract). The choice is always explicit; a missing compiled extension is an error,
never a silent fallback to the slow engine.
"""
from __future__ import annotations

import importlib
from types import SimpleNamespace

ENGINES = ("cython", "python")

_PACKAGES = {"cython": "fastbg._core", "python": "fastbg.reference"}
_MODULES = ("board", "movegen", "eval", "nn", "features", "evaluator", "policies", "rollout", "bearoffdb",
            "racedb", "cubeful")
_cache: dict[str, SimpleNamespace] = {}


def get_engine(name: str = "cython") -> SimpleNamespace:
    """Return the functions of one engine.

    Parameters
    ----------
    name : {"cython", "python"}
        ``"cython"`` is the compiled core (``fastbg._core``), ``"python"`` the
        pure-Python reference (``fastbg.reference``).

    Returns
    -------
    types.SimpleNamespace
        With attributes ``name``, ``board``, ``movegen``, ``eval``, ``nn``,
        ``features``, ``evaluator``, ``policies``, ``rollout``, ``bearoffdb``, ``racedb``,
        ``cubeful`` (the engine's modules) and the shortcuts ``legal_plays``, ``perft``, ``make_policy``,
        ``play_game``, ``rollout_block``, ``rollout_block_vr``, ``roll_indices``.

    Raises
    ------
    ValueError
        If ``name`` is not a known engine.
    ImportError
        If the compiled extension is missing (the package was not built).
    """
    if name not in _PACKAGES:
        raise ValueError(f"unknown engine {name!r}: choose one of {', '.join(ENGINES)}")
    if name in _cache:
        return _cache[name]
    package = _PACKAGES[name]
    try:
        mods = {m: importlib.import_module(f"{package}.{m}") for m in _MODULES}
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise ImportError(
            f"the {name} engine is not available ({exc}); build fastbg with "
            "`pip install .` (or `pip install -e .`) so the Cython core is compiled"
        ) from exc
    eng = SimpleNamespace(
        name=name,
        **mods,
        legal_plays=mods["movegen"].legal_plays,
        perft=mods["movegen"].perft,
        make_policy=mods["policies"].make_policy,
        play_game=mods["rollout"].play_game,
        rollout_block=mods["rollout"].rollout_block,
        rollout_block_vr=mods["rollout"].rollout_block_vr,
        roll_indices=mods["rollout"].roll_indices,
    )
    _cache[name] = eng
    return eng
