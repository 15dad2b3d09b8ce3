"""``gore-solve``: the console script the wheel installs, to build the solved
database without the repository's ``gore`` CLI (``gore.solve`` underneath;
the same files as ``gore solve --db DIR``).

    gore-solve --db solved/ [--rules no-trades[,skip-origin]] [--max-seeds 48]
               [--threads N] [--memory-mib 3072]
"""

from __future__ import annotations

import argparse
import sys
import time

import gore

_RULES = {"no-trades": False, "no-trades,skip-origin": True}


def main(argv: list[str] | None = None) -> int:
    """Parses the arguments, builds the database, prints a line per layer
    solved; returns the exit status (2 for bad arguments, 1 for an error,
    130 for Ctrl-C)."""
    ap = argparse.ArgumentParser(prog="gore-solve", description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="the database directory (made if missing)")
    ap.add_argument("--rules", default="no-trades", choices=sorted(_RULES))
    ap.add_argument("--max-seeds", type=int, default=48, help="solve layers 0 to this (48: all)")
    ap.add_argument("--threads", type=int, default=None, help="threads (default: every core)")
    ap.add_argument("--memory-mib", type=int, default=3072, help="working memory, MiB")
    args = ap.parse_args(argv)
    started = time.monotonic()
    last = [0.0]

    def progress(layer: int, done: int, total: int) -> None:
        now = time.monotonic()
        if done in (0, total) or now - last[0] >= 2.0:
            last[0] = now
            pct = 100.0 * done / total if total else 100.0
            print(f"layer {layer:>2}: {pct:5.1f}%", file=sys.stderr, flush=True)

    try:
        stats = gore.solve(
            args.db,
            max_seeds=args.max_seeds,
            skip_origin=_RULES[args.rules],
            threads=args.threads,
            memory_mib=args.memory_mib,
            progress=progress,
        )
    except KeyboardInterrupt:
        print("interrupted: the layers solved are kept; run again to resume", file=sys.stderr)
        return 130
    except gore.GoreError as e:
        print(f"gore-solve: {e}", file=sys.stderr)
        return 1
    if not stats:
        print(f"{args.rules}: layers 0 to {args.max_seeds} present in {args.db}, nothing to solve")
        return 0
    print(f"{args.rules}: solved layers {stats[0]['layer']} to {stats[-1]['layer']}")
    print(f"{'layer':>5} {'boards':>12} {'exact%':>8} {'pass-bds':>10}")
    for s in stats:
        print(
            f"{s['layer']:>5} {s['boards']:>12} {100.0 * s['exact'] / s['boards']:>8.4f} "
            f"{s['passes']:>10}"
        )
    print(f"{time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
