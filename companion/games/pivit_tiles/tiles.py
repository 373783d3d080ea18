"""Pivit tile notation.

A tile is written, and held in memory, as a two-character string: the design
digit then the colour letter ("3G" is a green diamond); the wild is "**".
Keeping the notation as the value makes grids readable in tests, cheap to
hash and free to print.
"""
from __future__ import annotations

from dataclasses import dataclass

DESIGNS = "123456"
DESIGN_NAMES = {
    "1": "circle",
    "2": "clover",
    "3": "diamond",
    "4": "square",
    "5": "four-point star",
    "6": "eight-point star",
}
COLOUR_NAMES = {
    "R": "red",
    "O": "orange",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "P": "purple",
    "W": "white",
}
WILD = "**"
COPIES = 3  # copies of each design-and-colour tile in a set
WILDS = 6  # wild tiles in a set


class TileError(ValueError):
    """A token that is not a tile of the tile set in use."""


@dataclass(frozen=True)
class TileSet:
    """One printing of the tiles: six colours, six designs, three copies, six wilds."""

    name: str
    colours: str

    def tiles(self) -> list[str]:
        """The 36 distinct non-wild tiles."""
        return [d + c for d in DESIGNS for c in self.colours]

    def full_set(self) -> list[str]:
        """All 114 tiles of a box."""
        return [t for t in self.tiles() for _ in range(COPIES)] + [WILD] * WILDS

    def max_copies(self, tile: str) -> int:
        return WILDS if tile == WILD else COPIES


TILESETS: dict[str, TileSet] = {
    "classic": TileSet("classic", "ROYGBP"),
    "connect": TileSet("connect", "ROYGBW"),
}


def get_tileset(tileset: str | TileSet) -> TileSet:
    """The TileSet for a name (or the set itself). Raises TileError for an unknown name."""
    if isinstance(tileset, TileSet):
        return tileset
    try:
        return TILESETS[tileset]
    except KeyError:
        raise TileError(f"unknown tile set {tileset!r} (known: {', '.join(TILESETS)})") from None


def parse_tile(token: str, tileset: str | TileSet = "classic") -> str:
    """The tile a token names, normalised to upper case. Raises TileError."""
    ts = get_tileset(tileset)
    tok = token.upper()
    if tok == WILD:
        return WILD
    if len(tok) != 2 or tok[0] not in DESIGNS or tok[1] not in COLOUR_NAMES:
        raise TileError(
            f"{token!r} is not a tile: write a design 1-6 and a colour letter, like 3G, or ** for a wild"
        )
    if tok[1] not in ts.colours:
        raise TileError(
            f"{token!r}: colour {COLOUR_NAMES[tok[1]]} is not in the {ts.name} tile set "
            f"(colours {' '.join(ts.colours)})"
        )
    return tok


def tile_name(tile: str) -> str:
    """A tile in words: "green diamond", "wild"."""
    if tile == WILD:
        return "wild"
    return f"{COLOUR_NAMES[tile[1]]} {DESIGN_NAMES[tile[0]]}"


def tokens_with_positions(text: str):
    """Yield (line_no, col_no, token) for each whitespace-separated token, 1-based positions."""
    for line_no, line in enumerate(text.splitlines(), 1):
        col = 0
        for part in line.split():
            col = line.index(part, col)
            yield line_no, col + 1, part
            col += len(part)


def parse_hand(text: str, tileset: str | TileSet = "classic", source: str = "<hand>") -> list[str]:
    """The tiles of a hand file: whitespace-separated tiles. Raises TileError naming source:line:col."""
    ts = get_tileset(tileset)
    hand = []
    for line_no, col_no, token in tokens_with_positions(text):
        try:
            hand.append(parse_tile(token, ts))
        except TileError as exc:
            raise TileError(f"{source}:{line_no}:{col_no}: {exc}") from None
    return hand


def hand_str(hand: list[str]) -> str:
    """A hand as one line of tiles, the inverse of parse_hand."""
    return " ".join(hand)
