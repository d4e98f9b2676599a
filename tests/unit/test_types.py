"""The product packages type-check: ``make lint``'s mypy step, run by the suite so it cannot rot."""

from __future__ import annotations

import subprocess
import sys

from core.paths import PROJECT_ROOT

PACKAGES = ("core", "engines", "deployments", "pipelines", "serve_app")


def test_mypy_passes_on_the_product_packages() -> None:
    args = [sys.executable, "-m", "mypy", "--no-error-summary"]
    for package in PACKAGES:
        args += ["-p", package]
    done = subprocess.run(args, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
