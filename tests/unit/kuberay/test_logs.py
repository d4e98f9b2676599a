"""Logs: Serve records as JSON, shipped to stdout by a sidecar beside every Ray pod."""

from __future__ import annotations

from typing import Any

from tests.unit.kuberay.manifests import containers, groups, one, ray_containers, serve_config


def fluent_bit_sections(text: str) -> list[tuple[str, dict[str, str]]]:
    """[SECTION] and its `Key value` lines of a Fluent Bit classic config, keys lower-cased."""
    sections: list[tuple[str, dict[str, str]]] = []
    for line in (line.strip() for line in text.splitlines()):
        if line.startswith("["):
            sections.append((line.strip("[]").upper(), {}))
        elif line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            sections[-1][1][key.lower()] = value.strip()
    return sections


def log_shipper(group: dict[str, Any]) -> dict[str, Any]:
    """The container beside Ray that mounts the Ray container's /tmp/ray volume at /tmp/ray."""
    ray, *others = containers(group)
    (logs,) = [m["name"] for m in ray["volumeMounts"] if m["mountPath"] == "/tmp/ray"]
    (shipper,) = [c for c in others if {"name": logs, "mountPath": "/tmp/ray"} in c.get("volumeMounts", [])]
    return shipper


def test_serve_logs_its_records_as_json() -> None:
    assert serve_config()["logging_config"]["encoding"] == "JSON"


def test_serve_writes_each_record_once() -> None:
    """Serve's records only in its JSON files (shipped), not again as text on stderr."""
    for name, container in ray_containers():
        env = {var["name"]: var.get("value") for var in container.get("env", [])}
        assert env.get("RAY_SERVE_LOG_TO_STDERR") == "0", name


def test_every_ray_pod_has_a_log_shipper_beside_ray() -> None:
    """Logs leave the emptyDir: a sidecar reads the Ray container's /tmp/ray; Ray stays the first container."""
    for name, group in groups().items():
        assert containers(group)[0]["image"].split("/")[-1].startswith("mediatrans-"), name
        assert log_shipper(group)["image"].startswith("fluent/fluent-bit:"), name


def test_the_log_shipper_reads_the_config_of_logs_yaml() -> None:
    config = one("logs.yaml", "ConfigMap")
    for name, group in groups().items():
        shipper = log_shipper(group)
        volumes = {v["name"]: v for v in group["template"]["spec"]["volumes"]}
        (folder,) = [
            m["mountPath"]
            for m in shipper["volumeMounts"]
            if volumes[m["name"]].get("configMap", {}).get("name") == config["metadata"]["name"]
        ]
        path = shipper["args"][shipper["args"].index("-c") + 1]
        assert path.startswith(folder + "/") and path[len(folder) + 1 :] in config["data"], name
        service = dict(fluent_bit_sections(config["data"][path[len(folder) + 1 :]]))["SERVICE"]
        assert service["parsers_file"].removeprefix(folder + "/") in config["data"], name


def test_the_log_shipper_writes_serves_json_records_to_stdout_as_json_lines() -> None:
    data = one("logs.yaml", "ConfigMap")["data"]
    sections = fluent_bit_sections(data["fluent-bit.conf"])
    outputs = [s for kind, s in sections if kind == "OUTPUT"]
    assert outputs and all(o["name"] == "stdout" and o["format"] == "json_lines" and o["match"] == "*" for o in outputs)
    parsers = {s["name"]: s for kind, s in fluent_bit_sections(data["parsers.conf"]) if kind == "PARSER"}
    serve = [s for kind, s in sections if kind == "INPUT" and "/tmp/ray/session_latest/logs/serve/*.log" in s["path"].split(",")]
    assert len(serve) == 1 and serve[0]["name"] == "tail"
    assert parsers[serve[0]["parser"]]["format"] == "json", "Serve's JSON records keep their fields"
