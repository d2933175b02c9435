"""The package's shape: no import cycles, and fastbg imports at the top of modules.

The layers themselves are import-linter's contract (``pyproject.toml``, run by
``lint-imports`` in CI); this test adds what a layers contract cannot see: a cycle
between modules of one package, and function-local imports of fastbg modules, which
hide such cycles. It reads the sources with :mod:`ast` only, so it needs nothing
installed beyond the standard library.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "fastbg"

#: Function-local imports that are lazy on purpose, (module, imported module): each says
#: why in a comment where it stands.
LAZY_ON_PURPOSE = {
    # the compiled core is optional until a cubeful rollout asks for it
    ("fastbg.rollouts.cubeful", "fastbg._core"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """The fastbg modules an ``from ... import ...`` statement loads."""
    if node.level:
        base = module.split(".")
        base = base if is_package else base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("fastbg"):
        return []
    # "from pkg import sub" loads pkg.sub when sub is a module
    return [target] + [f"{target}.{a.name}" for a in node.names]


def _type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def import_graph():
    """``{module: {(imported module, at top level?)}}`` over fastbg's Python sources."""
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = set()
        skip = {id(n) for t in ast.walk(tree) if _type_checking(t) for n in ast.walk(t)}

        def visit(node, top):
            for child in ast.iter_child_nodes(node):
                if id(child) in skip:
                    continue
                inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.ClassDef, ast.Lambda))
                if isinstance(child, ast.ImportFrom):
                    for t in _resolve(name, path.name == "__init__.py", child):
                        if t in files:
                            edges.add((t, top))
                elif isinstance(child, ast.Import):
                    for a in child.names:
                        if a.name.startswith("fastbg") and a.name in files:
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


def find_cycle(graph):
    """One import cycle (a list of modules, first == last), or None."""
    edges = {m: sorted({t for t, _ in e}) for m, e in graph.items()}
    state, stack = {}, []

    def dfs(m):
        state[m] = 1
        stack.append(m)
        for t in edges.get(m, ()):
            # a package's __init__ importing its own submodules is how packages work
            if t.startswith(m + "."):
                continue
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                found = dfs(t)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = dfs(m)
            if found:
                return found
    return None


def test_no_import_cycles():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {("b", True)}, "b": {("c", False)}, "c": {("a", True)}}) == \
        ["a", "b", "c", "a"]


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
