"""The project's import graph, read from source with ``ast`` (lazy imports inside functions included).

``from pkg import name`` counts as an import of ``pkg.name`` when that is a
module, else of ``pkg``; ``import a.b.c`` as an import of ``a.b.c``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engines", "core", "serve_app", "pipelines", "deployments")


def module_files(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Dotted module name → file, for every module of ``packages`` under ``root``."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` or its nearest enclosing module that is one of ``modules``."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _targets(node: ast.AST, package: str, modules: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [t for alias in node.names if (t := _known(alias.name, modules))]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        origin = ".".join(base + ([node.module] if node.module else []))
    else:
        origin = node.module or ""
    targets = []
    for alias in node.names:
        target = f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules else _known(origin, modules)
        if target:
            targets.append(target)
    return targets


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    """Module → the project modules it imports (itself excluded)."""
    modules = module_files(root, packages)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            edges.update(_targets(node, package, modules))
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def package_graph(graph: dict[str, set[str]], files: dict[str, Path]) -> dict[str, set[str]]:
    """Package → packages its modules import, leaving out imports between a package and its own ancestors."""

    def package_of(module: str) -> str:
        return module if files[module].name == "__init__.py" else module.rpartition(".")[0]

    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = package_of(module)
        for target in targets:
            dest = package_of(target)
            related = source == dest or source.startswith(dest + ".") or dest.startswith(source + ".")
            if not related:
                packages.setdefault(source, set()).add(dest)
    return packages
