"""The project's import graph, read from source with ``ast`` (lazy imports inside functions included).

``from pkg import name`` counts as an import of ``pkg.name`` when that is a
module, else of ``pkg``; ``import a.b.c`` as an import of ``a.b.c``.

It also finds where a module writes into ``configs/`` (``config_writes``): the
load tests measure the service and never change its configuration.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The service's layers (docs/architecture.md).
PRODUCT = ("engines", "core", "serve_app", "pipelines", "deployments")
#: Tools around the service: load tests, calibration, deploy tooling.
TOOLS = ("loadtests", "calibration", "cluster")
#: The HTTP client library (its own distribution, client/).
CLIENT = "mediatrans_client"
#: Top-level package → its folder under the project root.
FOLDERS = {name: Path(name) for name in PRODUCT + TOOLS} | {CLIENT: Path("client/src/mediatrans_client")}
PACKAGES = tuple(FOLDERS)


def module_files(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Dotted module name → file, for every module of ``packages`` under ``root``."""
    found = {}
    for package in packages:
        folder = root / FOLDERS.get(package, Path(package))
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder.parent).with_suffix("").parts
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


# Writes into configs/ -------------------------------------------------------------------------------

#: A string naming a path under configs/ (``"configs"``, ``"configs/x.yaml"``, ``f"{ROOT}/configs/x"``).
_CONFIGS = re.compile(r"(?:^|/)configs(?:/|$)")
#: Calls whose result is a path under their receiver or arguments (or whose items are).
_PATH_CALLS = {"Path", "PurePath", "join", "joinpath", "with_name", "with_suffix", "resolve", "absolute"}
_LISTINGS = {"glob", "rglob", "iterdir"}
#: Path methods that change the file they are called on.
_WRITING_METHODS = {"write_text", "write_bytes", "touch", "unlink", "mkdir", "rmdir", "symlink_to", "hardlink_to"}
#: Module functions (shutil, os) whose second argument (``dst``) is where they write.
_MOVES = {"copy", "copy2", "copyfile", "copytree", "move", "replace", "rename", "symlink", "link"}
#: Modules whose ``open`` takes the path first (``io.open(path, "w")``), unlike ``Path.open("w")``.
_MODULES = {"io", "builtins", "os", "shutil", "codecs", "gzip"}


def _call_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for a chain of names, else ``""``."""
    if isinstance(node, ast.Attribute):
        return f"{base}.{node.attr}" if (base := _dotted(node.value)) else ""
    return node.id if isinstance(node, ast.Name) else ""


def _under_configs(node: ast.expr | None, names: set[str], attributes: dict[str, set[str]]) -> bool:
    """Whether ``node`` is a path under configs/: a literal, a name bound to one, or one built from those."""
    if node is None:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(_CONFIGS.search(node.value))
    if isinstance(node, ast.JoinedStr):
        return any(_under_configs(v.value if isinstance(v, ast.FormattedValue) else v, names, attributes) for v in node.values)
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        if node.attr == "parent":
            return _under_configs(node.value, names, attributes)
        return node.attr in attributes.get(_dotted(node.value), set())
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
        return _under_configs(node.left, names, attributes) or _under_configs(node.right, names, attributes)
    if isinstance(node, ast.Call) and _call_name(node.func) in _PATH_CALLS | _LISTINGS:
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        return any(_under_configs(a, names, attributes) for a in [receiver, *node.args])
    return False


def _bound_names(tree: ast.AST, names: set[str], attributes: dict[str, set[str]]) -> set[str]:
    """``names`` and every name assigned (or looped over) a path under configs/, to a fixed point."""
    names = set(names)
    while True:
        before = len(names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.For | ast.comprehension):
                value = node.iter if isinstance(node, ast.For | ast.comprehension) else node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _under_configs(value, names, attributes):
                    names.update(t.id for t in targets if isinstance(t, ast.Name))
        if len(names) == before:
            return names


def _imported(tree: ast.AST, modules: dict[str, Path]) -> tuple[set[str], dict[str, set[str]]]:
    """Names imported from project modules that bind a path under configs/, and module (alias) → such names."""
    names: set[str] = set()
    attributes: dict[str, set[str]] = {}

    def bound(module: str) -> set[str]:
        return _bound_names(ast.parse(modules[module].read_text(encoding="utf-8")), set(), {})

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    attributes[alias.asname or alias.name] = bound(alias.name)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                local = alias.asname or alias.name
                if f"{node.module}.{alias.name}" in modules:
                    attributes[local] = bound(f"{node.module}.{alias.name}")
                elif node.module in modules and alias.name in bound(node.module):
                    names.add(local)
    return names, attributes


def _writes_into_configs(call: ast.Call, names: set[str], attributes: dict[str, set[str]]) -> bool:
    """Whether ``call`` opens for writing, writes, moves onto or removes a path under configs/."""
    name = _call_name(call.func)
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    on_path = receiver is not None and not (isinstance(receiver, ast.Name) and receiver.id in _MODULES)
    keywords = {k.arg: k.value for k in call.keywords}

    def arg(at: int, keyword: str) -> ast.expr | None:
        return call.args[at] if len(call.args) > at else keywords.get(keyword)

    if name in _WRITING_METHODS:
        return on_path and _under_configs(receiver, names, attributes)
    if name == "open":
        path, mode = (receiver, arg(0, "mode")) if on_path else (arg(0, "file"), arg(1, "mode"))
        writes = isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax+"))
        return writes and _under_configs(path, names, attributes)
    if name in _MOVES and not on_path:  # shutil.copy(src, dst), os.replace(src, dst)
        return _under_configs(arg(1, "dst"), names, attributes)
    if name in {"rename", "replace"} and on_path and len(call.args) + len(call.keywords) == 1:  # Path.replace(target)
        return _under_configs(arg(0, "target"), names, attributes)
    return False


def config_writes(source: str, modules: dict[str, Path] | None = None) -> list[int]:
    """Lines of ``source`` that write a path under configs/ (found by name; project constants imported included)."""
    tree = ast.parse(source)
    names, attributes = _imported(tree, module_files() if modules is None else modules)
    names = _bound_names(tree, names, attributes)
    return sorted(
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and _writes_into_configs(node, names, attributes)
    )
