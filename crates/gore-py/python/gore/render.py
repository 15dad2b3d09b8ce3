"""A position as an RGB image (numpy only): the ``"rgb_array"`` render mode
of gore.pettingzoo and gore.gym, what video recorders
(``gymnasium.wrappers.RecordVideo``) and notebooks take.

The image is ``rgb_array(position)``: ``uint8`` of shape ``(HEIGHT,
WIDTH, 3)``. B's row on top (b4 … b1 from the left), A's below (a1 …
a4), as the text render shows them; each hole is a square filled with
its controller's colour (A blue, B red) holding one dark dot per seed (a
7 × 7 grid: up to 49 seeds); a hole of the pending offer has a yellow
frame. B's captured seeds are the column on the left, A's on the right
(up to 98 dots each); the bar along the bottom has the colour of the
player to move.
"""

from __future__ import annotations

import numpy as np

import gore

__all__ = ["rgb_array", "HEIGHT", "WIDTH", "CELL", "COLORS"]

#: Side of a hole's square in pixels.
CELL = 48
_DOT = 4  # a seed's side
_PITCH = 6  # from one seed to the next
_PAD = 3  # from a square's edge to its first seed
_BAR = 8  # the bar of the player to move
#: The image's size: four holes and two stores across, two rows and the bar.
WIDTH = 6 * CELL
HEIGHT = 2 * CELL + _BAR

#: The colours, RGB.
COLORS = {
    "A": (150, 190, 240),
    "B": (240, 160, 150),
    "store": (225, 215, 190),
    "seed": (40, 30, 20),
    "offer": (250, 210, 40),
    "grid": (90, 90, 90),
}


def _dots(img: np.ndarray, top: int, left: int, count: int, columns: int) -> None:
    """``count`` seeds, row by row, in a grid of ``columns`` from (top, left)."""
    color = COLORS["seed"]
    for k in range(count):
        r, c = divmod(k, columns)
        y = top + _PAD + r * _PITCH
        x = left + _PAD + c * _PITCH
        img[y : y + _DOT, x : x + _DOT] = color


def rgb_array(position: gore.Position) -> np.ndarray:
    """The position as an image (see the module's documentation)."""
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[:] = COLORS["store"]
    seeds = position.seeds
    ctrl = position.controllers
    offer = set(position.pending_offer or ())
    names = ("a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4")
    # (hole index, row, column): B's row on top, b4 on the left.
    places = [(7 - j, 0, j) for j in range(4)] + [(j, 1, j) for j in range(4)]
    for i, row, col in places:
        top, left = row * CELL, (col + 1) * CELL
        if names[i] in offer:
            img[top : top + CELL, left : left + CELL] = COLORS["offer"]
            img[top + 3 : top + CELL - 3, left + 3 : left + CELL - 3] = COLORS[ctrl[i]]
        else:
            img[top : top + CELL, left : left + CELL] = COLORS[ctrl[i]]
        img[top : top + CELL, left] = COLORS["grid"]
        img[top, left : left + CELL] = COLORS["grid"]
        _dots(img, top, left, min(seeds[i], 49), 7)
    cap_a, cap_b = position.captured
    _dots(img, 0, 0, min(cap_b, 98), 7)
    _dots(img, 0, 5 * CELL, min(cap_a, 98), 7)
    img[2 * CELL :, :] = COLORS[position.to_move]
    return img
