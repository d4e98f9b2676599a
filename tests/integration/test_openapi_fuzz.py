"""Schemathesis against the running service's own /openapi.json, every check, bounded examples.

Generated clients are built from that document, so what it says must be what
the service accepts and answers: no 5xx, statuses and bodies as documented,
schema-valid requests accepted, invalid ones refused, 405 with a correct Allow.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import Accounts

pytestmark = [pytest.mark.serve, pytest.mark.deep]  # make test-deep: about 2.5 min

CONFIG = Path(__file__).with_name("schemathesis.toml")


def test_the_api_does_what_its_schema_says(serve_base_url: str, accounts: Accounts, tmp_path: Path) -> None:
    _account, token = accounts.create(rate_per_minute=100_000, burst=10_000)
    binary = Path(sys.executable).with_name("schemathesis")
    cmd = [
        str(binary),
        "--config-file",
        str(CONFIG),
        "run",
        f"{serve_base_url}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        "10",
        # A language's first grammar check loads its LanguageTool rules (German: about 6 s alone, more under the
        # fuzzer's load; docs/grammar.md), so a request may take longer than schemathesis's 10 s default.
        "--request-timeout",
        "60",
        "--seed",
        "20261122",
        "--workers",
        "2",
        "--header",
        f"Authorization: Bearer {token}",
        "--header",
        "X-Forwarded-For: 198.51.100.9",
        "--report",
        "junit",
        "--report-dir",
        str(tmp_path),
        "--no-color",
    ]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": ""}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-12000:] + proc.stderr[-3000:]
