"""The two engines' interfaces cannot drift apart (issue 37).

The compiled core's interface is written down in its stubs, ``fastbg/_core/*.pyi``; the
pure-Python engine's is its functions. For every function, class and method of a stub, the
reference engine has one of the same name with the same parameters (names, kinds, which
have defaults), and every constant of a stub exists in the reference too; the differences
there are, each with its reason, are listed below, and a listed difference that is gone
fails too, so that the list shrinks as the engines meet. It reads the stubs with :mod:`ast`
and the reference with :mod:`inspect`; it needs no compiled core.
"""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

STUBS = Path(__file__).resolve().parent.parent / "fastbg" / "_core"


#: Names of a stub the reference does not have: ``(module, name)``: why.
CORE_ONLY = {
    ("bearoffdb", "OneSided"): "the type of onesided()'s dict, a typing aid",
    ("bearoffdb", "two_sided"): "the two-sided database is built by the core alone",
    ("bearoffdb", "is_two_sided"): "the two-sided database is built by the core alone",
    ("bearoffdb", "db2_cache_path"): "the two-sided database's cache file",
    ("bearoffdb", "DB2_CACHE_VERSION"): "the two-sided database's cache file",
    ("bearoffdb", "_build_stats"): "a build diagnostic of the core",
    ("bearoffdb", "_build2_stats"): "a build diagnostic of the core",
    ("bearoffdb", "_check_against_movegen"): "the core's self-check against its move generator",
    ("racedb", "RaceEntry"): "the type of onesided()'s dict, a typing aid",
    ("racedb", "_build_stats"): "a build diagnostic of the core",
    ("racedb", "_check_against_movegen"): "the core's self-check against its move generator",
    ("eval", "Policy"): "the core's policy base class (the reference's policies are duck-typed)",
    ("features", "contact_features_many"): "a vectorised helper of the core for training data",
    ("evaluator", "clear_blot_memo"): "the core's memo of blot features, a cache of its own",
    ("nn", "Net"): "the core's float network object (the reference passes weight dicts)",
    ("nn", "default_net"): "the core's shipped Net (the reference: fastbg.spec.nn.default_weights)",
    ("nn", "td_train"): "TD training runs in the core only",
    ("nn", "encode_board"): "the reference's encode() takes stacks of boards",
    ("nn", "NNPolicy.play_equities"): "the reference's is a module function, play_equities()",
    ("nn", "NN1PlyPolicy.play_values"): "the core's candidate values, a helper of its 1-ply",
}

#: Functions whose parameters differ: ``(module, name)``: why.
DIFFERENT_PARAMETERS = {
    ("evaluator", "EvalPolicy.play_equities"): "the reference's mover_blots switch is its "
                                               "ranking's first pass under the blot rule",
    ("nn", "NNPolicy.__init__"): "the core takes a Net, the reference a weight dict",
    ("nn", "NN1PlyPolicy.__init__"): "the core takes a Net, the reference a weight dict",
    ("nn", "NNPolicy.forward"): "the reference's takes a stack of boards (boards)",
    ("nn", "NNPolicy.probabilities"): "the reference's takes a stack of boards (boards)",
}


def _stub_parameters(fn: ast.FunctionDef) -> list[tuple[str, str, bool]]:
    """``(name, kind, has a default)`` of a stub's parameters, in inspect's kind names."""
    a = fn.args
    pos = a.posonlyargs + a.args
    first_default = len(pos) - len(a.defaults)
    out = [(x.arg, "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD",
            i >= first_default) for i, x in enumerate(pos)]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    out += [(x.arg, "KEYWORD_ONLY", d is not None) for x, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return out


def _parameters(f) -> list[tuple[str, str, bool]]:
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(f).parameters.values()]


def stub_items(path: Path):
    """``(qualified name, stub node or None)`` of a stub: its functions, constants, classes
    and their methods (a class itself, and a constant, with None); a property is an
    instance's attribute, not looked for on the class."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id, None
        elif isinstance(node, ast.ClassDef):
            yield node.name, None
            for m in node.body:
                if isinstance(m, ast.FunctionDef) and not any(
                        isinstance(d, ast.Name) and d.id == "property" for d in m.decorator_list):
                    yield f"{node.name}.{m.name}", m


def _lookup(module, qualname: str):
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            return None
        obj = getattr(obj, part)
    return obj


MODULES = sorted(p.stem for p in STUBS.glob("*.pyi") if p.stem != "__init__")


def test_every_engine_module_has_a_stub():
    from fastbg.engine import _MODULES
    assert set(_MODULES) <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_the_reference_has_the_stubs_functions(name):
    module = importlib.import_module(f"fastbg.reference.{name}")
    missing, differ = set(), set()
    for qualname, node in stub_items(STUBS / f"{name}.pyi"):
        if (name, qualname.split(".")[0]) in missing:
            continue                    # a method of a class the reference does not have
        obj = _lookup(module, qualname)
        if obj is None:
            missing.add((name, qualname))
        elif node is not None and _stub_parameters(node) != _parameters(obj):
            differ.add((name, qualname))
    known_missing = {k for k in CORE_ONLY if k[0] == name}
    known_differ = {k for k in DIFFERENT_PARAMETERS if k[0] == name}
    assert missing - known_missing == set(), "in the stub, not in the reference"
    assert differ - known_differ == set(), "parameters differ between the stub and the reference"
    assert known_missing - missing == set(), "listed as core-only but now in the reference"
    assert known_differ - differ == set(), "listed as differing but now the same"


def test_the_comparison_sees_a_difference(tmp_path):
    stub = tmp_path / "m.pyi"
    stub.write_text("X: int\ndef f(a, b=1, *, c, d=2, **kw) -> None: ...\n"
                    "class P:\n    def g(self, board) -> None: ...\n"
                    "    @property\n    def h(self) -> int: ...\n")
    items = dict(stub_items(stub))
    assert set(items) == {"X", "f", "P", "P.g"}

    def f(a, b=1, *, c, d=2, **kw):
        pass

    def f2(a, b, *, c, d=2, **kw):
        pass

    assert _stub_parameters(items["f"]) == _parameters(f)
    assert _stub_parameters(items["f"]) != _parameters(f2)
