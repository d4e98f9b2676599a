"""The floor plan (docs/architecture.md): imports point one way, down, and never in a circle.

serve_app/    the HTTP edge             may import everything below (pipelines only in app.py)
pipelines/    job runner, video/voice   may import deployments, core, engines
deployments/  Serve deployments         may import core, engines
core/         shared stores and specs   may import engines
engines/      plain Python engines      imports nothing of the project above it
"""

from __future__ import annotations

import pytest

from tests.support.imports import cycles, import_graph, module_files, package_graph

#: Layer → the layers it may import (its own included).
ALLOWED = {
    "engines": {"engines"},
    "core": {"core", "engines"},
    "deployments": {"deployments", "core", "engines"},
    "pipelines": {"pipelines", "deployments", "core", "engines"},
    "serve_app": {"serve_app", "deployments", "core", "engines"},
}
#: The composition root binds the edge, the deployments and the pipelines together.
COMPOSITION_ROOT = "serve_app.app"


def layer(module: str) -> str:
    return module.split(".")[0]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``a -> b`` for every import the floor plan forbids."""
    bad = []
    for module, targets in sorted(graph.items()):
        allowed = ALLOWED[layer(module)] | ({"pipelines"} if module == COMPOSITION_ROOT else set())
        bad += [f"{module} -> {t}" for t in sorted(targets) if layer(t) not in allowed]
    return bad


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_every_import_points_down(graph: dict[str, set[str]]) -> None:
    assert upward_imports(graph) == []


def test_no_module_import_circle(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_no_two_packages_import_each_other(graph: dict[str, set[str]]) -> None:
    packages = package_graph(graph, module_files())
    assert cycles(packages) == []


def test_only_the_asgi_app_mounts_routes(graph: dict[str, set[str]]) -> None:
    """Route modules are leaves of the edge: services and schemas never import them."""
    importers = {m for m, targets in graph.items() for t in targets if t.startswith("serve_app.routes")}
    assert {m for m in importers if not m.startswith("serve_app.routes")} == {"serve_app.asgi"}


def test_the_checks_catch_what_they_forbid() -> None:
    """The rules themselves: an engine reaching up, a deployment reaching the edge, a circle."""
    forbidden = {
        "engines.tts.kokoro": {"core.settings"},
        "deployments.grammar": {"serve_app.responses"},
        "core.tasks.store": {"pipelines.job_runner"},
        "pipelines.worker": {"serve_app.auth"},
        "serve_app.routes.video": {"pipelines.worker"},
    }
    assert len(upward_imports(forbidden)) == 5
    assert upward_imports({COMPOSITION_ROOT: {"pipelines.worker"}, "core.errors": {"engines.errors"}}) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
