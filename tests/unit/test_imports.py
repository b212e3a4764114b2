"""The package imports one way only: no circle among the modules of src/phrasenmt.

The graph is read from the code with `ast`: every `import` and `from ... import`
anywhere in a module (inside functions and `if TYPE_CHECKING:` blocks too),
relative imports resolved. `from package import name` is an edge to the
submodule `package.name` when there is one, else to the package. The implicit
import of a module's parent packages is not an edge (as in import-linter).
Also keeps rules/common.smk, which every rule file builds on, small.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

SRC = REPO / "src"
PACKAGE = "phrasenmt"


def module_names(src: Path = SRC, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file of every module of the package (a package: its __init__)."""
    names = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
              known: dict[str, Path]) -> list[str]:
    """The package's own modules one import statement names."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parent = module.split(".")
            drop = node.level - 1 if is_package else node.level
            parent = parent[:len(parent) - drop]
            base = ".".join([*parent, base] if base else parent)
        targets = []
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            targets.append(sub if sub in known else base)
    found = []
    for target in targets:  # `import a.b.c` names a.b.c: its longest known prefix
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target:
            found.append(target)
    return found


def import_graph(src: Path = SRC, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself left out)."""
    known = module_names(src, package)
    graph = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.update(_imported(node, name, path.name == "__init__.py", known))
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_graph_holds_the_imports_of_the_code():
    graph = import_graph()
    assert "phrasenmt.workflow.base" in graph["phrasenmt.workflow.npmt"]
    assert "phrasenmt.workflow.runs" in graph["phrasenmt.workflow.base"]
    # inside a function: base imports the LM module only when the Snakefile asks
    assert "phrasenmt.lm" in graph["phrasenmt.workflow.base"]
    # the workflow families sit on the base, never the other way round
    families = {m for m in graph if m.startswith("phrasenmt.workflow.")} - {
        "phrasenmt.workflow.base", "phrasenmt.workflow.runs"}
    assert families and not graph["phrasenmt.workflow.base"] & families
    assert not any("phrasenmt.workflow.targets" in graph[m] for m in graph)


def test_cycles_are_found_through_relative_and_function_imports(tmp_path: Path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from ..c import X\n")
    (pkg / "c.py").write_text("def f():\n    import pkg.a\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert graph["pkg.c"] == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
    (pkg / "c.py").write_text("import os\n")
    assert find_cycle(import_graph(tmp_path, "pkg")) is None


def test_common_rules_stay_small():
    lines = (REPO / "rules" / "common.smk").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, (
        f"rules/common.smk has {len(lines)} lines: it keeps what every rule needs; "
        "a family's adapters go to that family's rules file")
