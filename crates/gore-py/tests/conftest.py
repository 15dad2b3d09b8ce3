"""Shared helpers: the `gore` CLI of the workspace (the Rust core's own
front door, for the tests that compare the Python bindings with it; or,
without it, the package's `gore._tool`, the same subcommands) and the
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


def _gore_command() -> list[str]:
    """GORE_BIN if set (CI: the CLI it builds); else a `gore` built in the
    workspace's target directory or on PATH; else the package's own
    `python -m gore._tool`, the same subcommands printed from gore-core
    directly, so that the tests need only the wheel (issue 40)."""
    env = os.environ.get("GORE_BIN")
    if env:
        return [env]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        p = target / profile / "gore"
        if p.exists():
            return [str(p)]
    exe = shutil.which("gore")
    if exe:
        return [exe]
    return [sys.executable, "-m", "gore._tool"]


@pytest.fixture(scope="session")
def gore_cli():
    """Runs the `gore` CLI's `legal`, `apply`, `perft` or `solve`
    (`_gore_command`) and returns its stdout lines. A GORE_BIN that is
    missing fails the tests that use it rather than falling back."""
    cmd = _gore_command()

    def run(*args: str) -> list[str]:
        out = subprocess.run([*cmd, *args], check=True, capture_output=True, text=True)
        return out.stdout.splitlines()

    return run
