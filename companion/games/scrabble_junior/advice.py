"""The rulebook's strategy tip as a helper: would a play let the next player complete a word?

"It's good strategy to check other players' tiles to see if a tile you're
playing would let an opponent complete a word." A player may complete word W
on their turn exactly when one of the turns the rules allow them covers all
of W's open letters. Holding those letters is not enough: "Always play two
tiles if you can", so when two tiles can be played, a tile that no second
tile could follow is not a turn (`rules.legal_turns`). With the real tiles
the companion cannot see the racks, so it warns only about words left one
tile from complete, which any opponent holding that letter could finish.

A play *lets* the next player complete W when W is completable by them after
the play but was not at the start of the turn, so a tile that closes a
danger it opened itself (by completing the word) is not flagged.
"""
from __future__ import annotations

from collections.abc import Iterable, Set
from dataclasses import dataclass

from companion.games.scrabble_junior.engine import State
from companion.games.scrabble_junior.layout import Layout
from companion.games.scrabble_junior.rules import legal_turns, open_letters


@dataclass(frozen=True)
class OpenedWord:
    """After a play, `player` could complete `word` by covering `cells` (cell indexes)."""

    word: int
    player: int
    cells: tuple[int, ...]


def completable_words(layout: Layout, covered: Set[int], rack: Iterable[str] | None) -> dict[int, tuple[int, ...]]:
    """Words a player holding `rack` could complete on their turn, with the cells they would cover.

    A word counts when some turn in `rules.legal_turns` covers all its open
    letters. `rack` None means the rack is unknown (real tiles): any letter
    may be held, and the words counted are those with one open letter.
    """
    if rack is None:
        found = {}
        for w in range(len(layout.words)):
            missing = open_letters(layout, w, covered)
            if len(missing) == 1:
                found[w] = tuple(missing)
        return found
    found = {}
    for turn in legal_turns(layout, covered, rack):
        for cell in turn:
            for w in layout.cell_words[cell]:
                missing = open_letters(layout, w, covered)
                if w not in found and set(missing) <= set(turn):
                    found[w] = tuple(missing)
    return dict(sorted(found.items()))


def next_player(state: State) -> int | None:
    """The next player in turn order, after the current one, who still has tiles; None if nobody does."""
    count = len(state.setup.players)
    for step in range(1, count):
        p = (state.player + step) % count
        if state.rack_counts[p] > 0:
            return p
    return None


def _threats(state: State, covered: Set[int], player: int) -> dict[int, tuple[int, ...]]:
    return completable_words(state.setup.layout, covered, state.rack(player))


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
