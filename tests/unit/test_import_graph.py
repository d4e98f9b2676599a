"""The floor plan (docs/architecture.md): imports point one way, down, and never in a circle.

calibration/   scoring tools that write configs/  may import every layer, mediatrans_client, loadtests
loadtests/     load tests and benchmarks          may import every layer, mediatrans_client
cluster/       deploy tooling                     may import every layer, mediatrans_client
serve_app/     the HTTP edge                      may import everything below (pipelines only in app.py)
pipelines/     job runner, video/voice            may import deployments, core, engines
deployments/   Serve deployments                  may import core, engines
core/          shared stores and specs            may import engines
engines/       plain Python engines               imports nothing of the project above it
client/src/mediatrans_client/  the HTTP client    imports nothing of the service

No layer imports a tool or the client, and no load test writes configs/ (calibration/ does).
"""

from __future__ import annotations

import pytest

from tests.support.imports import CLIENT, PRODUCT, TOOLS, config_writes, cycles, import_graph, module_files, package_graph

#: Layer → the layers it may import (its own included).
ALLOWED = {
    "engines": {"engines"},
    "core": {"core", "engines"},
    "deployments": {"deployments", "core", "engines"},
    "pipelines": {"pipelines", "deployments", "core", "engines"},
    "serve_app": {"serve_app", "deployments", "core", "engines"},
    CLIENT: {CLIENT},
    "loadtests": {"loadtests", *PRODUCT, CLIENT},
    "calibration": {"calibration", "loadtests", *PRODUCT, CLIENT},
    "cluster": {"cluster", *PRODUCT, CLIENT},
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


def test_the_graph_reads_the_tools_and_the_client(graph: dict[str, set[str]]) -> None:
    assert set(ALLOWED) == {*PRODUCT, *TOOLS, CLIENT}
    assert {layer(m) for m in graph} == set(ALLOWED)
    assert "mediatrans_client.client" in graph
    assert "loadtests.llm_process" in graph["calibration.score_engines"]


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


def test_the_checks_keep_tools_and_client_out_of_the_service() -> None:
    """No layer imports a tool or the client; the client imports nothing of the service; tools import down."""
    forbidden = {
        "engines.registry": {"loadtests.llm_process"},
        "core.settings": {"calibration.score_engines"},
        "serve_app.app": {"mediatrans_client.client"},
        "pipelines.worker": {"cluster.local.lock_hashes"},
        "mediatrans_client.client": {"serve_app.schemas"},
        "loadtests.bench_api": {"calibration.score_engines"},
        "cluster.kuberay.render": {"loadtests.local_profile"},
    }
    assert len(upward_imports(forbidden)) == len(forbidden)
    allowed = {
        "loadtests.locustfile": {"serve_app.app", "mediatrans_client.client"},
        "calibration.score_engines": {"loadtests.llm_process", "engines.registry", "pipelines.worker"},
        "cluster.images.gpu_constraints": {"cluster.local.lock_hashes", "core.paths"},
        "mediatrans_client.cli.app": {"mediatrans_client.client"},
    }
    assert upward_imports(allowed) == []


def test_no_load_test_writes_configs() -> None:
    """Load tests measure; the tools that write configs/ (the routing and voice tables) are in calibration/."""
    files = module_files(packages=["loadtests"])
    writes = {name: lines for name, path in files.items() if (lines := config_writes(path.read_text(encoding="utf-8")))}
    assert len(files) > 20  # the scan found the load tests
    assert writes == {}


def test_the_scan_sees_a_write_into_configs() -> None:
    """The scanner itself: literal paths, names bound to them, imported constants; reads and other folders pass."""
    source = """
import shutil
from pathlib import Path
from calibration.score_engines import ROUTING
from engines.grammar import precision

ROOT = Path(__file__).resolve().parents[1]
VOICES = ROOT / "configs" / "voices.yaml"
LOCAL = ROOT / "configs" / "local.yaml"

def main(tmp: Path) -> None:
    VOICES.write_text("x")
    with open(ROOT / "configs" / "grammar" / "precision.yaml", "w") as f:
        f.write("x")
    with open(f"{ROOT}/configs/local.yaml", mode="a"):
        pass
    shutil.copy(tmp / "routing.yaml", VOICES.parent / "routing.yaml")
    ROUTING.unlink()
    precision.PATH.write_text("x")
    for path in (ROOT / "configs").glob("*.yaml"):
        path.open("w").close()
    config = LOCAL.read_text()
    with open(LOCAL) as f, LOCAL.open() as g:
        print(f.read(), g.read(), config.replace("a", "configs/"))
    (tmp / LOCAL.name).write_text(config)
    Path("var/report.md").write_text(config)
    shutil.copy(LOCAL, tmp / "local.yaml")
"""
    lines = source.splitlines()
    found = [lines[n - 1].strip().split("(")[0] for n in config_writes(source)]
    assert found == [
        "VOICES.write_text",
        "with open",
        "with open",
        "shutil.copy",
        "ROUTING.unlink",
        "precision.PATH.write_text",
        "path.open",
    ]
    calibration = module_files(packages=["calibration"])
    assert config_writes(calibration["calibration.score_engines"].read_text(encoding="utf-8"))  # ROUTING.write_text
