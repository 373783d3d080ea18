"""Quivit's cards and their notation: the 160-card deck, point cards, places on the grid.

A point card shows four colour squares (quadrants) in a 2 x 2, one each of
red, green, blue and yellow, and a value in its centre (1, 2, 3 or -1). Its
notation lists the colours clockwise from the top-left quadrant, then the
value: ``RGBY2`` has red top-left, green top-right, blue bottom-right and
yellow bottom-left, and is worth 2 points. Listing the colours clockwise
makes a quarter turn a cyclic shift: ``RGBY2`` turned right is ``YRGB2``.

The grid's places are named like a chess board: columns ``a``-``e`` from the
left, rows ``1``-``5`` from the top, so ``c3`` is the centre card. A place is
``(row, column)`` counted from 0 inside the engine.

Parsing and printing come in pairs (`parse_card`/`card_str`,
`parse_cell`/`cell_str`, `parse_direction`/`direction_str`), and the
deterministic shuffle the digital deal uses lives here too, so a stored event
log replays to the same deal on any Python version.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from companion.games.base import RuleError

COLORS = ("R", "G", "B", "Y")
COLOR_NAMES = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}

# Quadrants clockwise from the top-left, the order of a card's notation.
TOP_LEFT, TOP_RIGHT, BOTTOM_RIGHT, BOTTOM_LEFT = range(4)
QUADRANT_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")

VALUES = (1, 2, 3, -1)

# The 160-card deck as the rulebook lists it.
POINT_CARD_COUNTS = {1: 64, 2: 46, 3: 26, -1: 12}
DOUBLE_ROTATE_CARDS = 6
COLOR_BLOCK_CARDS = 6
DECK_SIZE = sum(POINT_CARD_COUNTS.values()) + DOUBLE_ROTATE_CARDS + COLOR_BLOCK_CARDS  # 160
POINT_CARDS = sum(POINT_CARD_COUNTS.values())  # 148: the draw deck of one box

# Special cards are never in the grid; these names appear in deck listings.
DOUBLE_ROTATE = "DR"
COLOR_BLOCK = "CB"

GRID_SIZE = 5
COLUMN_LETTERS = "abcdefghij"

# Rotations: quarter turns clockwise. "double" is the Double Rotate card's 180 degrees.
DIRECTIONS = {"right": 1, "left": -1, "double": 2}
_DIRECTION_LETTERS = {"R": "right", "L": "left", "D": "double"}


class NotationError(RuleError):
    """Text that is not a Quivit card, place or rotation. The message names the text."""


@dataclass(frozen=True)
class Card:
    """A point card as printed: its value and its colours clockwise from the top-left."""

    value: int
    colors: tuple[str, str, str, str]

    def __post_init__(self) -> None:
        if self.value not in VALUES:
            raise NotationError(f"a card is worth 1, 2, 3 or -1 points, not {self.value!r}")
        if sorted(self.colors) != sorted(COLORS):
            raise NotationError(
                f"a card shows red, green, blue and yellow once each, not {''.join(map(str, self.colors))!r}"
            )

    def turned(self, quarter_turns: int) -> tuple[str, str, str, str]:
        """The colours clockwise from the top-left after `quarter_turns` clockwise quarter turns."""
        k = quarter_turns % 4
        c = self.colors
        return (c[-k], c[(1 - k) % 4], c[(2 - k) % 4], c[(3 - k) % 4]) if k else c


def parse_card(text: str) -> Card:
    """``"RGBY2"`` -> Card(2, ("R", "G", "B", "Y")). Raises NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"a card is written like RGBY2, not {text!r}")
    t = text.strip().upper()
    colors, value = t[:4], t[4:]
    if len(t) < 5 or not all(ch in COLORS for ch in colors) or value not in ("1", "2", "3", "-1"):
        raise NotationError(
            f"{text!r} is not a card: write its four colours clockwise from the top-left, then its value, like RGBY2"
        )
    return Card(int(value), tuple(colors))  # type: ignore[arg-type]


def card_str(card: Card, quarter_turns: int = 0) -> str:
    """Card(2, RGBY) -> ``"RGBY2"``; with `quarter_turns`, the colours as the card lies now."""
    return "".join(card.turned(quarter_turns)) + str(card.value)


def parse_cell(text, size: int = GRID_SIZE) -> tuple[int, int]:
    """``"c3"`` (or ``[2, 2]``) -> (2, 2): row then column from the top-left. Raises NotationError."""
    if isinstance(text, (list, tuple)) and len(text) == 2:
        r, c = text
        if all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < size for v in (r, c)):
            return (r, c)
        raise NotationError(f"there is no place {list(text)!r} in a {size} x {size} grid")
    if isinstance(text, str):
        t = text.strip().lower()
        if len(t) >= 2 and t[0] in COLUMN_LETTERS[:size] and t[1:].isdigit():
            row = int(t[1:]) - 1
            if 0 <= row < size:
                return (row, COLUMN_LETTERS.index(t[0]))
    last = COLUMN_LETTERS[size - 1]
    raise NotationError(f"{text!r} is not a place in the grid: columns a-{last}, rows 1-{size}, like c3")


def cell_str(cell: tuple[int, int]) -> str:
    """(2, 2) -> ``"c3"``."""
    r, c = cell
    return f"{COLUMN_LETTERS[c]}{r + 1}"


def parse_color(text) -> str:
    """``"G"``/``"green"`` (any case) -> ``"G"``. Raises NotationError."""
    if isinstance(text, str):
        key = text.strip()
        if key.upper() in COLORS:
            return key.upper()
        for letter, name in COLOR_NAMES.items():
            if key.lower() == name:
                return letter
    raise NotationError(f"a colour is red, green, blue or yellow, not {text!r}")


def color_str(color: str) -> str:
    """``"G"`` -> ``"green"``, the colour's name."""
    return COLOR_NAMES[color]


def parse_direction(text) -> str:
    """``"right"``/``"R"``, ``"left"``/``"L"``, ``"double"``/``"D"`` -> the direction's name. Raises NotationError."""
    if isinstance(text, str):
        t = text.strip()
        if t.lower() in DIRECTIONS:
            return t.lower()
        if t.upper() in _DIRECTION_LETTERS:
            return _DIRECTION_LETTERS[t.upper()]
    raise NotationError(f"{text!r} is not a rotation: right, left or double (180 degrees with a Double Rotate card)")


def direction_str(direction: str) -> str:
    """``"right"`` -> ``"R"`` (the letter used in move notation like ``c3R``)."""
    for letter, name in _DIRECTION_LETTERS.items():
        if name == direction:
            return letter
    raise NotationError(f"{direction!r} is not a rotation")


def parse_move(text: str) -> tuple[tuple[int, int], str]:
    """``"c3R"`` -> ((2, 2), "right"): a place and a rotation. Raises NotationError."""
    if not isinstance(text, str) or len(text.strip()) < 3:
        raise NotationError(f"{text!r} is not a rotation: write the place then R, L or D, like c3R")
    t = text.strip()
    return parse_cell(t[:-1]), parse_direction(t[-1])


def move_str(cell: tuple[int, int], direction: str) -> str:
    """((2, 2), "right") -> ``"c3R"``."""
    return cell_str(cell) + direction_str(direction)


# The six ways to lay four colours clockwise around a card, up to rotation:
# red fixed top-left, the other three in every order.
LAYOUTS: tuple[tuple[str, str, str, str], ...] = tuple(
    ("R", a, b, c)
    for a in ("G", "B", "Y")
    for b in ("G", "B", "Y")
    for c in ("G", "B", "Y")
    if len({a, b, c}) == 3
)


def point_deck(decks: int = 1) -> tuple[Card, ...]:
    """The draw deck before shuffling: every point card of `decks` boxes, in a fixed order.

    The printed cards' colour layouts are not public, so the virtual deck
    spreads the six possible layouts evenly over each value (card k of a value
    has layout k mod 6). A card's identity in a game is its index here.
    """
    cards = []
    for _ in range(decks):
        for value, count in POINT_CARD_COUNTS.items():
            cards.extend(Card(value, LAYOUTS[k % len(LAYOUTS)]) for k in range(count))
    return tuple(cards)


class SeededStream:
    """Deterministic random numbers from a seed and a label, the same on every Python version.

    SHA-256 in counter mode: the stored event log of a table must replay to
    the same deal after the Pi's Python is upgraded, which `random` does not
    promise.
    """

    def __init__(self, seed, label: str) -> None:
        self._prefix = f"quivit|{seed!r}|{label}|".encode()
        self._counter = 0
        self._pool = 0
        self._bits = 0

    def _refill(self) -> None:
        digest = hashlib.sha256(self._prefix + str(self._counter).encode()).digest()
        self._counter += 1
        self._pool = (self._pool << 256) | int.from_bytes(digest, "big")
        self._bits += 256

    def below(self, n: int) -> int:
        """A uniform whole number in 0..n-1 (rejection sampling, so no bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        width = max(1, (n - 1).bit_length())
        while True:
            while self._bits < width:
                self._refill()
            self._bits -= width
            value = (self._pool >> self._bits) & ((1 << width) - 1)
            self._pool &= (1 << self._bits) - 1
            if value < n:
                return value


def shuffled(items: tuple, seed, label: str = "deck") -> tuple:
    """`items` in a Fisher-Yates order drawn from `seed`: the same seed always gives the same order."""
    out = list(items)
    stream = SeededStream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)
