"""``python -m gore._tool legal|apply|perft|solve ARGS…``: the subcommands
of the repository's ``gore`` CLI that the package's tests compare the
bindings with, printing what the CLI prints (``legal``, ``apply`` and
``perft`` from gore-core's own parsers and printers, in Rust; ``solve``
is ``gore-solve``, which writes the files ``gore solve`` writes). The
tests use it when no ``gore`` binary is given (``GORE_BIN``): they then
need only the wheel (issue 40)."""

from __future__ import annotations

import sys

from . import _gore, _solve_cli


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["solve"]:
        return _solve_cli.main(args[1:])
    try:
        lines = _gore._tool(args)
    except _gore.GoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
