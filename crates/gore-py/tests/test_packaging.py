"""The package as installed: one abi3 wheel for CPython 3.9 and later, with
its type stubs and py.typed, and stubs that match the module."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import gore
import gore._gore


def test_the_extension_is_abi3():
    # An abi3 build is named `_gore.abi3.so`, a per-version one
    # `_gore.cpython-311-x86_64-linux-gnu.so`.
    assert Path(gore._gore.__file__).name == "_gore.abi3.so"
    wheel = importlib.metadata.distribution("gore").read_text("WHEEL")
    tags = [line.split(": ", 1)[1] for line in wheel.splitlines() if line.startswith("Tag: ")]
    assert tags and all(t.startswith("cp39-abi3-") for t in tags), tags


def test_stubs_and_py_typed_are_installed():
    root = Path(gore.__file__).parent
    assert (root / "py.typed").is_file()
    stub = (root / "_gore.pyi").read_text()
    assert "def solve(" in stub and "class ArgumentError(GoreError)" in stub


def test_stubtest_is_clean():
    """mypy's stubtest compares _gore.pyi with the module itself: every
    name, signature and default (issue 30 found 44 lines)."""
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "gore._gore"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success: no issues found" in r.stdout
