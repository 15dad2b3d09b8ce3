"""Shared helpers: the `gore` CLI of the workspace (the Rust core's own
front door, for the tests that compare the Python bindings with it) and the
benchmark's pure-Python reference."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "crates" / "gore-py" / "bench"))


def _gore_binary() -> str | None:
    env = os.environ.get("GORE_BIN")
    if env:
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        p = target / profile / "gore"
        if p.exists():
            return str(p)
    return shutil.which("gore")


@pytest.fixture(scope="session")
def gore_cli():
    """Runs the `gore` CLI (GORE_BIN, else target/debug/gore: build it with
    `cargo build -p gore-cli`) and returns its stdout lines. A missing
    binary fails the tests that need it rather than skipping them."""
    exe = _gore_binary()
    if exe is None:
        pytest.fail("the gore CLI is needed: run `cargo build -p gore-cli` or set GORE_BIN")

    def run(*args: str) -> list[str]:
        out = subprocess.run([exe, *args], check=True, capture_output=True, text=True)
        return out.stdout.splitlines()

    return run
