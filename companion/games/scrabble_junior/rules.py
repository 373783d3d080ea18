"""The board rules of Scrabble Junior, as pure functions of a layout and its covered squares.

The cover rule: a tile may cover a square when its letter matches and, in at
least one word through that square, every earlier letter of that word is
covered (for a word's first letter there are none). Put another way, the
squares a tile may cover are exactly the *next open letters* of the words:
the first uncovered letter of each word, in spelling order. Because crossing
words share squares, a word's later letters may already be covered by the
word that crosses it ("back up" in the rulebook), and the tile that
completes a word is the one covering its last *open* letter, wherever that
is.

`covered` is always a set of cell indexes. Which tiles a turn may play
("Always play two tiles if you can") is `legal_turns`; the rest of the turn
rules (draw, exchange, pass, whose turn) are in `engine`, built on these
functions.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Set

from companion.games.base import RuleError
from companion.games.scrabble_junior.layout import Layout


class IllegalCoverError(RuleError):
    """A tile may not cover that square now; the message says why in the rulebook's words."""


def next_open_letter(layout: Layout, word: int, covered: Set[int]) -> int | None:
    """The first uncovered square of `word` in spelling order, or None if the word is complete."""
    for cell in layout.words[word].cells:
        if cell not in covered:
            return cell
    return None


def open_letters(layout: Layout, word: int, covered: Set[int]) -> list[int]:
    """The uncovered squares of `word`, in spelling order."""
    return [c for c in layout.words[word].cells if c not in covered]


def coverable_cells(layout: Layout, covered: Set[int]) -> frozenset[int]:
    """Every square a tile may cover now (ignoring whose tiles): each word's next open letter."""
    found = set()
    for word in range(len(layout.words)):
        cell = next_open_letter(layout, word, covered)
        if cell is not None:
            found.add(cell)
    return frozenset(found)


def is_coverable(layout: Layout, covered: Set[int], cell: int) -> bool:
    """True if a tile may cover `cell` now under the cover rule."""
    return cell not in covered and any(
        next_open_letter(layout, w, covered) == cell for w in layout.cell_words[cell]
    )


def check_cover(layout: Layout, covered: Set[int], cell: int) -> None:
    """Raise IllegalCoverError, explaining which letter must come first, unless `cell` is coverable."""
    name = layout.name_of(cell)
    if cell in covered:
        raise IllegalCoverError(f"the {layout.letters[cell]} on {name} is already covered")
    if is_coverable(layout, covered, cell):
        return
    needs = []
    for w in layout.cell_words[cell]:
        first = next_open_letter(layout, w, covered)
        needs.append(f"the {layout.letters[first]} of {layout.words[w].text} ({layout.name_of(first)})")
    raise IllegalCoverError(
        f"play letters in order: cover {' or '.join(needs)} before the "
        f"{layout.letters[cell]} on {name}"
    )


def words_completed_by(layout: Layout, covered: Set[int], cell: int) -> tuple[int, ...]:
    """The words a tile on `cell` completes: those through it whose only open letter it is."""
    return tuple(
        w
        for w in layout.cell_words[cell]
        if all(c == cell or c in covered for c in layout.words[w].cells)
    )


def completed_words(layout: Layout, covered: Set[int]) -> list[int]:
    """Indexes of the words with every letter covered."""
    return [
        w for w, word in enumerate(layout.words) if all(c in covered for c in word.cells)
    ]


def playable_cells(layout: Layout, covered: Set[int], rack: Iterable[str] | None) -> list[int]:
    """Coverable squares whose letter is in `rack` (None: any letter), in cell order."""
    letters = None if rack is None else set(rack)
    return sorted(
        c for c in coverable_cells(layout, covered) if letters is None or layout.letters[c] in letters
    )


def second_tiles(
    layout: Layout, covered: Set[int], rack: Iterable[str] | None, first: int
) -> list[int]:
    """Squares a second tile could cover after a first tile on `first` (rack still holds it)."""
    if rack is None:
        remaining = None
    else:
        remaining = Counter(rack)
        remaining[layout.letters[first]] -= 1
        remaining = +remaining
    return playable_cells(layout, covered | {first}, remaining)


def can_play_two(layout: Layout, covered: Set[int], rack: Iterable[str]) -> bool:
    """True if two tiles of `rack` can be played one after the other."""
    rack = list(rack)
    covered = frozenset(covered)
    return any(
        second_tiles(layout, covered, rack, first) for first in playable_cells(layout, covered, rack)
    )


def two_tile_plays(
    layout: Layout, covered: Set[int], rack: Iterable[str] | None
) -> list[tuple[int, int]]:
    """Every ordered pair of squares two tiles of `rack` (None: any) could cover this turn."""
    rack = None if rack is None else list(rack)
    covered = frozenset(covered)
    return [
        (first, second)
        for first in playable_cells(layout, covered, rack)
        for second in second_tiles(layout, covered, rack, first)
    ]


def legal_turns(
    layout: Layout, covered: Set[int], rack: Iterable[str] | None
) -> list[tuple[int, ...]]:
    """Every turn a player holding `rack` may play on this board, as the squares covered in order.

    "Always play two tiles if you can": the ordered pairs of `two_tile_plays`
    when there is any; otherwise each single tile that fits (the player then
    draws one); empty when no tile fits (exchange or pass).
    """
    pairs = two_tile_plays(layout, covered, rack)
    if pairs:
        return pairs
    return [(cell,) for cell in playable_cells(layout, covered, rack)]
