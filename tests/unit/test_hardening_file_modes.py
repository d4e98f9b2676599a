"""The local file store (every tenant's outputs) is owner-only: folders 0700, files 0600, whatever the umask."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.files.local import LocalFileStore

SECRET = b"0123456789abcdef0123"
TASK = "vt_0123456789abcdef"


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The permissive umask a shell or a container may run with."""
    previous = os.umask(0o002)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def put(store: LocalFileStore, src: Path, name: str, *, consume: bool = False) -> None:
    asyncio.run(store.put(TASK, name, src, "text/plain", consume=consume))


def test_root_task_folder_file_and_metadata_have_no_group_or_other_access(tmp_path: Path, open_umask: None) -> None:
    root = tmp_path / "var" / "files"
    src = tmp_path / "src.txt"
    src.write_text("hello")
    os.chmod(src, 0o644)
    store = LocalFileStore(root, "http://x", SECRET)
    put(store, src, "out.txt")
    moved = tmp_path / "moved.txt"
    moved.write_text("consumed")
    os.chmod(moved, 0o666)
    put(store, moved, "moved.txt", consume=True)

    everything = [root.parent, root, *root.rglob("*")]
    assert {p.name for p in root.rglob("*")} == {TASK, "out.txt", ".out.txt.json", "moved.txt", ".moved.txt.json"}
    for path in everything:
        expected = 0o700 if path.is_dir() else 0o600
        assert mode(path) == expected, f"{path.relative_to(tmp_path)}: {oct(mode(path))}"
    assert store.open_path(f"{TASK}/out.txt").read_text() == "hello"


def test_an_existing_world_readable_root_is_tightened_and_metadata_rewritten_owner_only(tmp_path: Path, open_umask: None) -> None:
    root = tmp_path / "files"
    (root / TASK).mkdir(parents=True)
    os.chmod(root, 0o755)
    meta = root / TASK / ".out.txt.json"
    meta.write_text("{}")
    os.chmod(meta, 0o644)
    src = tmp_path / "src.txt"
    src.write_text("hello")
    put(LocalFileStore(root, "http://x", SECRET), src, "out.txt")
    assert mode(root) == 0o700
    assert mode(meta) == 0o600 and mode(root / TASK / "out.txt") == 0o600


REDIS_SH = Path(__file__).resolve().parents[2] / "cluster" / "local" / "redis.sh"
#: Stand-ins on PATH: redis-server records its umask and writes a dump into --dir; redis-cli answers once it ran.
FAKE_SERVER = """#!/usr/bin/env bash
while [ $# -gt 0 ]; do [ "$1" = --dir ] && dir=$2; shift; done
umask > "$FAKE_STATE/umask"
echo secrets > "$dir/dump.rdb"
touch "$FAKE_STATE/started"
"""
FAKE_CLI = """#!/usr/bin/env bash
[ -e "$FAKE_STATE/started" ]
"""


def checkout(tmp_path: Path) -> Path:
    """A copy of redis.sh where it lives (it works from the checkout's root), with fake Redis binaries on PATH."""
    script = tmp_path / "repo" / "cluster" / "local" / "redis.sh"
    script.parent.mkdir(parents=True)
    script.write_text(REDIS_SH.read_text())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in (("redis-server", FAKE_SERVER), ("redis-cli", FAKE_CLI)):
        (bin_dir / name).write_text(body)
        os.chmod(bin_dir / name, 0o755)
    return script


def run_script(script: Path, tmp_path: Path, action: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PATH=f"{tmp_path / 'bin'}:{env['PATH']}", FAKE_STATE=str(tmp_path), MEDIATRANS_REDIS_PORT="1")
    subprocess.run(["bash", str(script), action], check=True, env=env, timeout=60, capture_output=True)


def test_redis_data_is_owner_only_even_when_made_before(tmp_path: Path, open_umask: None) -> None:
    script = checkout(tmp_path)
    data = tmp_path / "repo" / "var" / "redis"
    data.mkdir(parents=True)
    os.chmod(data, 0o755)
    (data / "appendonly.aof").write_text("old")
    os.chmod(data / "appendonly.aof", 0o644)

    run_script(script, tmp_path, "prepare")
    assert mode(data) == 0o700 and mode(data / "appendonly.aof") == 0o600
    assert not (tmp_path / "started").exists(), "prepare starts nothing"


def test_redis_starts_under_umask_077_so_its_dump_is_0600(tmp_path: Path, open_umask: None) -> None:
    script = checkout(tmp_path)
    run_script(script, tmp_path, "start")
    data = tmp_path / "repo" / "var" / "redis"
    assert (tmp_path / "umask").read_text().strip() == "0077"
    assert mode(data) == 0o700 and mode(data / "dump.rdb") == 0o600
