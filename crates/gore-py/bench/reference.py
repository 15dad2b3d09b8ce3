"""A small pure-Python Goré (standard rules, optional ply cap), written from
RULES.md for the benchmark only: what the same random playouts cost without
the Rust core. The package never uses it. Actions are the 103 numbers of
docs/PYTHON.md, so that a test can play the same games on both.
"""

from __future__ import annotations

from itertools import combinations

# The numbering: 0-7 sow a1..b4, 8-99 offers of 1, 2 then 3 holes in
# lexicographic board order, 100 accept, 101 decline, 102 pass.
OFFERS = [c for k in (1, 2, 3) for c in combinations(range(8), k)]
OFFER_NUMBER = {c: 8 + i for i, c in enumerate(OFFERS)}
ACCEPT, DECLINE, PASS = 100, 101, 102


class RefGame:
    """One game: the board, repetition, the ply cap and the result."""

    def __init__(self, seeds_per_hole: int = 6, ply_cap: int | None = None) -> None:
        self.seeds = [seeds_per_hole] * 8
        self.ctrl = [0, 0, 0, 0, 1, 1, 1, 1]  # 0 = A, 1 = B
        self.captured = [0, 0]
        self.to_move = 0
        self.offer: tuple[int, ...] = ()
        self.ply = 0
        self.ply_cap = ply_cap
        self.seen = {self._key(): 1}
        self.result: tuple[int, int] | None = None

    def _key(self) -> tuple:
        return (
            tuple(self.seeds),
            tuple(self.ctrl),
            self.captured[0],
            self.captured[1],
            self.to_move,
            self.offer,
        )

    def gpn(self) -> str:
        """The position in GPN, to compare with the package."""
        s = ",".join(map(str, self.seeds[:4])) + "/" + ",".join(map(str, self.seeds[4:]))
        c = "".join("AB"[x] for x in self.ctrl)
        offer = "+".join(("a" if h < 4 else "b") + str(h % 4 + 1) for h in self.offer) or "-"
        return f"{s} {c[:4]}/{c[4:]} {self.captured[0]}-{self.captured[1]} {'AB'[self.to_move]} {offer}"

    def legal(self) -> list[int]:
        if self.result is not None:
            return []
        if self.offer:
            return [ACCEPT, DECLINE]
        me = self.to_move
        own = [h for h in range(8) if self.ctrl[h] == me]
        acts = [h for h in own if self.seeds[h] > 0] or [PASS]
        k = min(3, len(own) - 1, self.captured[1 - me] // 6)
        for size in range(1, k + 1):
            for c in combinations(own, size):
                acts.append(OFFER_NUMBER[c])
        return sorted(acts)

    def play(self, a: int) -> None:
        """Plays a legal action (unchecked beyond the lookup)."""
        me = self.to_move
        if a < 8:
            n = self.seeds[a]
            self.seeds[a] = 0
            h = a
            for _ in range(n):
                h = (h + 1) % 8
                self.seeds[h] += 1
            self.to_move = 1 - me
            s = self.seeds
            if self.ctrl[h] != me and s[h] in (2, 4):
                taken = {h}
                j = h
                for _ in range(7):
                    j = (j - 1) % 8
                    if s[j] not in (2, 4) or j in taken:
                        break
                    taken.add(j)
                j = h
                for _ in range(7):
                    j = (j + 1) % 8
                    if s[j] not in (2, 4) or j in taken:
                        break
                    taken.add(j)
                for j in taken:
                    self.captured[me] += s[j]
                    s[j] = 0
        elif a < 100:
            self.offer = OFFERS[a - 8]
            self.to_move = 1 - me
        elif a == ACCEPT:
            for h in self.offer:
                self.ctrl[h] = me
                self.seeds[h] += 6
            self.captured[me] -= 6 * len(self.offer)
            self.offer = ()
        elif a == DECLINE:
            self.offer = ()
        else:  # pass
            self.to_move = 1 - me
        self.ply += 1
        key = self._key()
        count = self.seen.get(key, 0) + 1
        self.seen[key] = count
        if (
            max(self.seeds) <= 2
            or count >= 3
            or (self.ply_cap is not None and self.ply >= self.ply_cap)
        ):
            self._sweep()

    def _sweep(self) -> None:
        for h in range(8):
            self.captured[self.ctrl[h]] += self.seeds[h]
            self.seeds[h] = 0
        self.offer = ()
        self.result = (self.captured[0], self.captured[1])
