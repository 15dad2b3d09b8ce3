"""The package as installed: one abi3 wheel for CPython 3.9 and later, with
its type stubs and py.typed, and stubs that match the module."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import gore
import gore._gore

#: The distribution's name on PyPI (issue 40: `gore` there is someone
#: else's); the import name is `gore`.
DIST = "gore-mancala"


def test_the_extension_is_abi3():
    # An abi3 build is named `_gore.abi3.so`, a per-version one
    # `_gore.cpython-311-x86_64-linux-gnu.so`.
    assert Path(gore._gore.__file__).name == "_gore.abi3.so"
    wheel = importlib.metadata.distribution(DIST).read_text("WHEEL")
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


def test_metadata_names_the_package():
    meta = importlib.metadata.metadata(DIST)
    assert meta["Name"] == "gore-mancala"
    assert meta["Requires-Python"] == ">=3.9"
    assert "MIT OR Apache-2.0" in (meta["License"] or meta.get("License-Expression", ""))
    assert meta["Author"] or meta["Author-email"]
    # The README is the long description, in Markdown.
    assert meta["Description-Content-Type"].startswith("text/markdown")
    body = meta.get_payload() or meta["Description"]
    assert "pip install gore-mancala" in body and "import gore" in body
    extras = meta.get_all("Provides-Extra")
    assert {"pettingzoo", "openspiel", "vector", "gymnasium"} <= set(extras)


def test_wheel_holds_the_package_only():
    files = {str(f) for f in importlib.metadata.distribution(DIST).files}
    assert not any(f.endswith(".gitignore") for f in files), files
    assert "gore/_gore.abi3.so" in files and "gore/_gore.pyi" in files
    # Both licences travel with the wheel.
    licences = {f.rsplit("/", 1)[-1] for f in files if "/licenses/" in f}
    assert licences == {"LICENSE-MIT", "LICENSE-APACHE"}, files


def elf_section_names(path: Path) -> set[str]:
    """The section names of a 64-bit little-endian ELF file, read from its
    header as the ELF specification lays it out (no tool needed)."""
    import struct

    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    strtab = header(shstrndx)
    names = data[strtab[4] : strtab[4] + strtab[5]]
    out = set()
    for i in range(shnum):
        name = header(i)[0]
        out.add(names[name : names.index(b"\0", name)].decode())
    return out


def test_the_module_is_stripped():
    so = Path(gore._gore.__file__)
    sections = elf_section_names(so)
    # A module still has its dynamic symbols (what Python looks up) ...
    assert ".dynsym" in sections and ".text" in sections
    # ... but no full symbol table and no debug information.
    assert ".symtab" not in sections, sorted(sections)
    assert not any(s.startswith(".debug") for s in sections), sorted(sections)


def test_the_tool_prints_what_the_cli_prints():
    """`python -m gore._tool` (what the tests use without a `gore` binary):
    the start's four sowings (RULES.md), a3 worked by hand (its 6 seeds
    go to a4, b1, b2, b3, b4 and a1), perft 1 and 2 (4 sowings, then 4
    replies each), and an error as an exit status."""

    def run(*args):
        return subprocess.run([sys.executable, "-m", "gore._tool", *args], capture_output=True, text=True)

    assert run("legal").stdout.split() == ["a1", "a2", "a3", "a4"]
    assert run("apply", "a3").stdout.splitlines() == ["7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -"]
    assert run("perft", "2").stdout.splitlines() == ["1 4", "2 16"]
    bad = run("apply", "b1")
    assert bad.returncode == 1 and "action 1 `b1`" in bad.stderr
