"""Scrabble Junior board layouts: the printed board as a list of words and their squares.

A layout is text, one word per line::

    # comments start with '#'
    EGGS Ak H
    FRUIT Ab V

``WORD START DIRECTION``: the word in capitals, the square of its first letter
(row letter A-Z, then column letter a-z, so ``Ak`` is the top row, eleventh
column) and ``H`` (across, left to right) or ``V`` (down, top to bottom).
Words that cross share the square where they meet, so they must agree on
its letter; `parse_layout` rejects a layout where they do not, naming both
lines. Words running the same way may not overlap: on the printed board
words only ever cross.

`parse_layout` and `layout_str` are a pair: ``parse_layout(layout_str(l))``
gives back ``l``. There is one letter tile per board square, so a layout
also fixes the tile set (`Layout.tiles`).
"""
from __future__ import annotations

import functools
import importlib.resources
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from companion.games.base import OptionError

ROW_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
ACROSS, DOWN = "H", "V"


class LayoutError(OptionError):
    """A layout text that is not a valid board; the message names the line."""


def cell_name(row: int, col: int) -> str:
    """The name of a square, ``"Ak"`` for row 0, column 10. Raises ValueError off the grid."""
    if not (0 <= row < len(ROW_LETTERS) and 0 <= col < len(COLUMN_LETTERS)):
        raise ValueError(f"no square at row {row}, column {col}")
    return ROW_LETTERS[row] + COLUMN_LETTERS[col]


def parse_cell(name: str) -> tuple[int, int]:
    """``(row, col)`` of a square name like ``"Ak"``. Raises ValueError for anything else."""
    if (
        not isinstance(name, str)
        or len(name) != 2
        or name[0] not in ROW_LETTERS
        or name[1] not in COLUMN_LETTERS
    ):
        raise ValueError(
            f"{name!r} is not a square: give a row letter A-Z then a column letter a-z, like 'Ak'"
        )
    return ROW_LETTERS.index(name[0]), COLUMN_LETTERS.index(name[1])


@dataclass(frozen=True)
class Word:
    """One word printed on the board, with the squares of its letters in spelling order."""

    text: str
    start: str  # square of the first letter, "Ak"
    direction: str  # ACROSS or DOWN
    cells: tuple[int, ...]  # cell indexes, first letter first
    line: int = field(default=0, compare=False)  # line of the layout text it came from


@dataclass(frozen=True)
class Layout:
    """A board: its squares (cells) in reading order and the words through them.

    Cells are numbered in reading order (row by row, left to right), so two
    layouts with the same words in a different order number them alike.
    """

    words: tuple[Word, ...]
    positions: tuple[tuple[int, int], ...]  # cell index -> (row, col)
    letters: tuple[str, ...]  # cell index -> its printed letter
    cell_words: tuple[tuple[int, ...], ...]  # cell index -> indexes of the words through it
    rows: int
    cols: int
    name: str = field(default="custom", compare=False)
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Number of squares, which is also the number of letter tiles."""
        return len(self.letters)

    @property
    def tiles(self) -> Counter[str]:
        """The letter tiles of the game: one per square."""
        return Counter(self.letters)

    def name_of(self, cell: int) -> str:
        """The square name (``"Ak"``) of cell index `cell`."""
        return cell_name(*self.positions[cell])

    def cell_at(self, name: str) -> int:
        """The cell index of square `name`. Raises ValueError if it is not a board letter."""
        try:
            return self._index[name]
        except KeyError:
            parse_cell(name)  # raises for a malformed name, with its own message
            raise ValueError(f"square {name} has no letter on this board") from None

    def word_named(self, text: str) -> int:
        """Index of the first word spelled `text`. Raises KeyError if none is."""
        for index, word in enumerate(self.words):
            if word.text == text:
                return index
        raise KeyError(f"no word {text!r} on this board")


def _word_cells(row: int, col: int, direction: str, length: int) -> list[tuple[int, int]]:
    if direction == ACROSS:
        return [(row, col + i) for i in range(length)]
    return [(row + i, col) for i in range(length)]


def parse_layout(text: str, name: str = "custom") -> Layout:
    """Read a layout in the text format above.

    Raises LayoutError (an OptionError) naming `name` and the line for a
    malformed line, a word running off the 26 x 26 grid, two words that
    disagree on the letter of a square they share, two words overlapping the
    same way, or a text without words.
    """
    # square -> (letter, line, word text) and (square, direction) -> (line, word)
    letter_at: dict[tuple[int, int], tuple[str, int, str]] = {}
    run_at: dict[tuple[tuple[int, int], str], tuple[int, str]] = {}
    entries: list[tuple[str, str, str, list[tuple[int, int]], int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}, line {number}"
        fields = line.split()
        if len(fields) != 3:
            raise LayoutError(
                f"{where}: expected WORD START DIRECTION, like 'EGGS Ak H', got {line!r}"
            )
        word, start, direction = fields
        if not (word.isascii() and word.isalpha() and len(word) >= 2):
            raise LayoutError(f"{where}: {word!r} is not a word of two or more letters A-Z")
        word = word.upper()
        try:
            row, col = parse_cell(start)
        except ValueError as exc:
            raise LayoutError(f"{where}: {exc}") from None
        direction = direction.upper()
        if direction not in (ACROSS, DOWN):
            raise LayoutError(
                f"{where}: direction {fields[2]!r} must be H (across) or V (down)"
            )
        squares = _word_cells(row, col, direction, len(word))
        last_row, last_col = squares[-1]
        if last_row >= len(ROW_LETTERS) or last_col >= len(COLUMN_LETTERS):
            raise LayoutError(f"{where}: {word} runs off the 26 x 26 grid")
        for letter, square in zip(word, squares):
            if (square, direction) in run_at:
                other_line, other = run_at[square, direction]
                way = "across" if direction == ACROSS else "down"
                raise LayoutError(
                    f"{where}: {word} overlaps {other} (line {other_line}) running {way} "
                    f"at {cell_name(*square)}; words may only cross"
                )
            if square in letter_at and letter_at[square][0] != letter:
                other_letter, other_line, other = letter_at[square]
                raise LayoutError(
                    f"{where}: {word} puts {letter} on {cell_name(*square)}, but {other} "
                    f"(line {other_line}) has {other_letter} there"
                )
        for letter, square in zip(word, squares):
            run_at[square, direction] = (number, word)
            letter_at.setdefault(square, (letter, number, word))
        entries.append((word, start, direction, squares, number))
    if not entries:
        raise LayoutError(f"{name}: the layout has no words")

    ordered = sorted(letter_at)
    index_of = {square: i for i, square in enumerate(ordered)}
    cell_words: list[list[int]] = [[] for _ in ordered]
    words = []
    for w, (word, start, direction, squares, number) in enumerate(entries):
        cells = tuple(index_of[s] for s in squares)
        for c in cells:
            cell_words[c].append(w)
        words.append(Word(word, start, direction, cells, number))
    return Layout(
        words=tuple(words),
        positions=tuple(ordered),
        letters=tuple(letter_at[s][0] for s in ordered),
        cell_words=tuple(tuple(ws) for ws in cell_words),
        rows=max(r for r, _ in ordered) + 1,
        cols=max(c for _, c in ordered) + 1,
        name=name,
        _index={cell_name(*s): i for s, i in index_of.items()},
    )


def layout_str(layout: Layout) -> str:
    """The layout as text in the format `parse_layout` reads, words in their order."""
    lines = [
        f"# {layout.name}: {len(layout.words)} words, {layout.size} letters, "
        f"{layout.rows} x {layout.cols}",
        "# WORD START DIRECTION",
    ]
    lines += [f"{w.text} {w.start} {w.direction}" for w in layout.words]
    tiles = " ".join(f"{letter}{n}" for letter, n in sorted(layout.tiles.items()))
    lines.append(f"# Letter tiles, one per board letter ({layout.size}): {tiles}")
    return "\n".join(lines) + "\n"


def builtin_layouts() -> list[str]:
    """Names of the layouts shipped with the engine ("standard" is the printed board)."""
    folder = importlib.resources.files("companion.games.scrabble_junior.boards")
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".txt"))


@functools.lru_cache(maxsize=None)
def builtin_layout(name: str = "standard") -> Layout:
    """A layout shipped with the engine. Raises LayoutError for an unknown name."""
    if name not in builtin_layouts():
        raise LayoutError(
            f"unknown board layout {name!r}; known: {', '.join(builtin_layouts())}"
        )
    folder = importlib.resources.files("companion.games.scrabble_junior.boards")
    return parse_layout((folder / f"{name}.txt").read_text(encoding="utf-8"), name=name)


def read_layout(path: str | Path) -> Layout:
    """Read a layout file. Raises LayoutError naming the file if it cannot be read or parsed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"{path}: cannot read the layout ({exc})") from None
    return parse_layout(text, name=str(path))
