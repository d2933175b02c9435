"""The package's shape: no import cycles, and fastbg imports at the top of modules.

The layers themselves are import-linter's contract (``pyproject.toml``, run by
``lint-imports`` in CI); this test adds what a layers contract cannot see: a cycle among
fastbg's modules, within a package or across them (a submodule that imports a name from its
own package's ``__init__``, such as ``from .. import __version__``, closes one), counting
every import: at module level, inside functions, and under ``if TYPE_CHECKING:`` (an
annotation is a dependency too); and function-local imports of fastbg modules, which hide
such cycles. It reads the sources with :mod:`ast` only, so it needs nothing installed
beyond the standard library.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "fastbg"

#: Function-local imports that are lazy on purpose, (module, imported module): each says
#: why in a comment where it stands.
LAZY_ON_PURPOSE: set[tuple[str, str]] = set()


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, modules) -> list[str]:
    """The fastbg modules a ``from ... import ...`` statement depends on: each name that is
    a module (``from pkg import sub``), and the module itself for each name that it defines
    (``from pkg import name`` runs ``pkg/__init__.py``). The parent packages that every
    import loads first are not counted: they would make each submodule depend on its
    package, which imports it."""
    if node.level:
        base = module.split(".")
        base = base if is_package else base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("fastbg"):
        return []
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
            for a in node.names]


def import_graph(root: Path = ROOT):
    """``{module: {(imported module, at top level?)}}`` over the Python sources under
    ``root`` (a package folder); ``if TYPE_CHECKING:`` blocks count as top level."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = set()

        def visit(node, top):
            for child in ast.iter_child_nodes(node):
                inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.ClassDef, ast.Lambda))
                if isinstance(child, ast.ImportFrom):
                    for t in _resolve(name, path.name == "__init__.py", child, files):
                        if t in files:
                            edges.add((t, top))
                elif isinstance(child, ast.Import):
                    for a in child.names:
                        if a.name in files:
                            edges.add((a.name, top))
                # methods of a class body run at import time only for the class statement
                visit(child, inner if not isinstance(child, ast.ClassDef) else top)

        visit(tree, True)
        graph[name] = {(t, top) for t, top in edges if t != name}
    return graph


GRAPH = import_graph()


def test_the_graph_sees_the_package():
    assert "fastbg.game.position" in GRAPH
    assert ("fastbg.formats.positionid", True) in GRAPH["fastbg.game.position"]


def find_cycles(graph) -> list[list[str]]:
    """Every import cycle of ``graph`` (``{module: {(imported module, top)}}``): its strongly
    connected components of more than one module, each sorted (Tarjan's algorithm)."""
    edges = {m: sorted({t for t, _ in e}) for m, e in graph.items()}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def connect(m):
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for t in edges.get(m, ()):
            if t not in index:
                connect(t)
                low[m] = min(low[m], low[t])
            elif t in on_stack:
                low[m] = min(low[m], index[t])
        if low[m] == index[m]:
            component = []
            while True:
                t = stack.pop()
                on_stack.discard(t)
                component.append(t)
                if t == m:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(edges):
        if m not in index:
            connect(m)
    return sorted(cycles)


def test_no_import_cycles():
    cycles = find_cycles(GRAPH)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_cycles():
    assert find_cycles({"a": {("b", True)}, "b": {("c", False)}, "c": {("a", True)},
                        "d": {("a", True)}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {("b", True)}, "b": set()}) == []


def test_the_graph_sees_the_cycles_it_must_find(tmp_path):
    # the two kinds issue 37 found: a submodule importing its top package's version (the
    # package re-exports the submodule's package), and two modules that import each other,
    # one of them only for its annotations and the other inside a function
    pkg = tmp_path / "fastbg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from typing import TYPE_CHECKING\n__version__ = '1'\n"
                                     "if TYPE_CHECKING:\n    from .sub import run\n")
    (pkg / "sub" / "__init__.py").write_text("from .run import run\n")
    (pkg / "sub" / "run.py").write_text("from .. import __version__\n")
    (pkg / "ids.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                "    from .state import State\n")
    (pkg / "state.py").write_text("def f():\n    from . import ids\n")
    (pkg / "leaf.py").write_text("from . import ids\nfrom .sub import run\n")
    graph = import_graph(pkg)
    assert graph["fastbg.leaf"] == {("fastbg.ids", True), ("fastbg.sub.run", True)}
    assert ("fastbg.ids", False) in graph["fastbg.state"]
    assert find_cycles(graph) == [["fastbg", "fastbg.sub.run"], ["fastbg.ids", "fastbg.state"]]


def test_fastbg_imports_are_at_the_top_of_modules():
    local = sorted(
        (m, t) for m, edges in GRAPH.items() for t, top in edges
        if not top and not any(m.startswith(a) and t.startswith(b) for a, b in LAZY_ON_PURPOSE)
    )
    assert not local, f"function-local imports of fastbg modules: {local}"


@pytest.mark.parametrize("package", ["formats"])
def test_formats_are_leaves(package):
    """The codecs import no domain object: nothing of game, cube, nn, rollouts or cli."""
    above = ("fastbg.game", "fastbg.cube", "fastbg.nn", "fastbg.rollouts", "fastbg.cli")
    bad = sorted((m, t) for m, e in GRAPH.items() if m.startswith(f"fastbg.{package}")
                 for t, _ in e if t.startswith(above))
    assert not bad


PYX = ROOT.parent / "pyx" / "fastbg" / "_core"


def _pyx_imports(text: str) -> set[str]:
    """The fastbg modules a Cython source imports (``import``, ``from ... import`` and
    ``cimport`` lines, at any indentation)."""
    found = set()
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in ("import", "from", "cimport") and words[1].startswith("fastbg"):
            found.add(words[1].rstrip(","))
    return found


def test_the_compiled_core_reads_the_spec_not_the_reference():
    """The compiled core's sources (which import-linter cannot read) import the engine spec
    for what the engines share, never the pure-Python engine: then the engines' agreement
    is not agreement with each other (DESIGN section 6)."""
    assert PYX.is_dir()
    imports = {p.name: _pyx_imports(p.read_text()) for p in sorted(PYX.glob("*.p*")) if p.suffix in (".pyx", ".pxd")}
    assert any("fastbg.spec.board" in m for m in imports.values())      # the scan sees imports
    bad = {name: sorted(m for m in mods if m == "fastbg.reference" or m.startswith("fastbg.reference."))
           for name, mods in imports.items()}
    assert not {k: v for k, v in bad.items() if v}, bad
    assert _pyx_imports("    from fastbg.reference.nn import x\ncimport fastbg._core.board\n") == {
        "fastbg.reference.nn", "fastbg._core.board"}
