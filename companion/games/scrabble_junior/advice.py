"""The rulebook's strategy tip as a helper: would a play let the next player complete a word?

"It's good strategy to check other players' tiles to see if a tile you're
playing would let an opponent complete a word." A player may complete word W
on their turn exactly when W has at most two open letters and they hold the
tiles for all of them: covering W's open letters in spelling order is always
allowed (each is then W's next open letter), so no other order needs
checking. With the real tiles the companion cannot see the racks, so it
warns only about words left one tile from complete, which any opponent
holding that letter could finish.

A play *lets* the next player complete W when W is completable by them after
the play but was not at the start of the turn, so a tile that closes a
danger it opened itself (by completing the word) is not flagged.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.games.scrabble_junior.layout import Layout
from companion.games.scrabble_junior.rules import open_letters

if TYPE_CHECKING:  # the engine imports this module; only the type is needed here
    from companion.games.scrabble_junior.engine import State

TILES_PER_TURN = 2


@dataclass(frozen=True)
class OpenedWord:
    """After a play, `player` could complete `word` by covering `cells` (cell indexes)."""

    word: int
    player: int
    cells: tuple[int, ...]


def completable_words(
    layout: Layout, covered: Set[int], rack: Iterable[str] | None, tiles: int = TILES_PER_TURN
) -> dict[int, tuple[int, ...]]:
    """Words a player holding `rack` could complete with at most `tiles` tiles, with the cells to cover.

    `rack` None means the rack is unknown: any letter may be held.
    """
    held = None if rack is None else Counter(rack)
    found = {}
    for w in range(len(layout.words)):
        missing = open_letters(layout, w, covered)
        if not 1 <= len(missing) <= tiles:
            continue
        if held is not None and Counter(layout.letters[c] for c in missing) - held:
            continue
        found[w] = tuple(missing)
    return found


def next_player(state: State) -> int | None:
    """The next player in turn order, after the current one, who still has tiles; None if nobody does."""
    count = len(state.setup.players)
    for step in range(1, count):
        p = (state.player + step) % count
        if state.rack_counts[p] > 0:
            return p
    return None


def _threats(state: State, covered: Set[int], player: int) -> dict[int, tuple[int, ...]]:
    if state.racks is None:
        return completable_words(state.setup.layout, covered, None, tiles=1)
    return completable_words(state.setup.layout, covered, state.racks[player])


def opened_words(state: State, cells: Iterable[int]) -> list[OpenedWord]:
    """Words the next player could complete if the player to move covers `cells` this turn.

    `cells` are cell indexes the player would cover now, after any already
    covered this turn; the warning compares with the board at the start of
    the turn. Legality of `cells` is not checked here.
    """
    target = next_player(state)
    if target is None:
        return []
    start = state.covered - frozenset(state.this_turn)
    before = _threats(state, start, target)
    after = _threats(state, state.covered | frozenset(cells), target)
    return [OpenedWord(w, target, after[w]) for w in sorted(after) if w not in before]
