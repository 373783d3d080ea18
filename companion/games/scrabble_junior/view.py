"""What the phones see of a Scrabble Junior table: the board, racks, chips, the turn and its warnings.

A phone page draws everything from `to_json` (and the engine's `actions`):
every square with who covered it, every word with who completed it, the
players' racks (digital tiles) or rack sizes, the turn and what the rules
require, the strategy tip's warnings (`advice`) on each square the player to
move may cover, and the history of turns.
"""
from __future__ import annotations

from typing import Any

from companion.games.scrabble_junior import advice
from companion.games.scrabble_junior.engine import (
    TILES_PER_TURN,
    IllegalCoverError,
    State,
    Turn,
    legal_cells,
    must,
    player_name,
    winners,
)
from companion.games.scrabble_junior.rules import coverable_cells, words_completed_by

GAME_ID = "scrabble-junior"


def play_warnings(state: State, cells: list[str]) -> list[dict[str, Any]]:
    """The rulebook's strategy tip for a whole play: words the next player could then complete.

    `cells` are square names the player to move would cover this turn.
    Raises IllegalCoverError for a name that is not a board letter.
    """
    layout = state.setup.layout
    try:
        indexes = [layout.cell_at(c) for c in cells]
    except ValueError as exc:
        raise IllegalCoverError(str(exc)) from None
    return [_opened_json(state, o) for o in advice.opened_words(state, indexes)]


def _opened_json(state: State, opened: advice.OpenedWord) -> dict[str, Any]:
    layout = state.setup.layout
    return {
        "word": layout.words[opened.word].text,
        "player": opened.player,
        "name": player_name(state, opened.player),
        "cells": [layout.name_of(c) for c in opened.cells],
    }


def _turn_json(state: State, turn: Turn) -> dict[str, Any]:
    layout = state.setup.layout
    return {
        "number": turn.number,
        "player": turn.player,
        "kind": turn.kind,
        "cells": [layout.name_of(c) for c in turn.cells],
        "letters": [layout.letters[c] for c in turn.cells],
        "words": [layout.words[w].text for w in turn.words],
        "chips": len(turn.words),
        "drew": turn.drew,
        "exchanged": turn.exchanged,
        "auto": turn.auto,
    }


def _prompt(state: State) -> str:
    if state.finished:
        names = " and ".join(player_name(state, p) for p in winners(state))
        return f"All tiles are on the board. {names} {'win' if len(winners(state)) > 1 else 'wins'}!"
    who = player_name(state, state.player)
    required = must(state)
    if required == "play-two":
        return f"{who}: cover two letters"
    if required == "play-one":
        if state.this_turn:
            return f"{who}: cover one more letter"
        return f"{who}: cover one letter (only one can be played)"
    if required == "exchange":
        return f"{who} cannot play: exchange two tiles with the pool"
    if required == "pass":
        return f"{who} cannot play and the pool is empty: pass"
    if state.this_turn:
        return f"{who}: cover a second letter, or end the turn if you cannot"
    return f"{who}: cover two letters (or exchange two tiles if you cannot play)"


def to_json(state: State) -> dict[str, Any]:
    """Everything a phone needs to draw the board, racks, chips, pool and whose turn it is."""
    layout = state.setup.layout
    owner = {cell: (player, turn) for cell, player, turn in state.placements}
    coverable = coverable_cells(layout, state.covered)
    cells = []
    for c in range(layout.size):
        row, col = layout.positions[c]
        by, turn = owner.get(c, (None, None))
        cells.append(
            {
                "id": layout.name_of(c),
                "row": row,
                "col": col,
                "letter": layout.letters[c],
                "covered": c in state.covered,
                "by": by,
                "turn": turn,
                "this_turn": c in state.this_turn,
                "coverable": c in coverable,
                "words": list(layout.cell_words[c]),
            }
        )
    words = []
    for w, word in enumerate(layout.words):
        left = [c for c in word.cells if c not in state.covered]
        words.append(
            {
                "index": w,
                "word": word.text,
                "start": word.start,
                "direction": word.direction,
                "cells": [layout.name_of(c) for c in word.cells],
                "covered": len(word.cells) - len(left),
                "next": layout.name_of(left[0]) if left else None,
                "completed_by": state.completed_by[w],
            }
        )
    playable = []
    if not state.finished:
        for c in legal_cells(state):
            playable.append(
                {
                    "cell": layout.name_of(c),
                    "letter": layout.letters[c],
                    "completes": [
                        layout.words[w].text for w in words_completed_by(layout, state.covered, c)
                    ],
                    "opens": [_opened_json(state, o) for o in advice.opened_words(state, [c])],
                }
            )
    players = [
        {
            "index": p,
            "name": name,
            "chips": state.chips[p],
            "rack": None if state.racks is None else list(state.racks[p]),
            "rack_count": state.rack_counts[p],
            "words": [layout.words[w].text for w, by in enumerate(state.completed_by) if by == p],
        }
        for p, name in enumerate(state.setup.players)
    ]
    nxt = None if state.finished else advice.next_player(state)
    return {
        "game": GAME_ID,
        "tiles": state.setup.tiles,
        "board": {
            "name": layout.name,
            "rows": layout.rows,
            "cols": layout.cols,
            "cells": cells,
            "words": words,
        },
        "players": players,
        # The chips are the score: the service's chart and history read a top-level `scores`.
        "scores": list(state.chips),
        "pool": state.pool_count,
        "kitty": state.kitty,
        "tiles_total": layout.size,
        "tiles_on_board": len(state.covered),
        "turn": {
            "player": None if state.finished else state.player,
            "number": state.turn_number,
            "covered": [layout.name_of(c) for c in state.this_turn],
            "words": [layout.words[w].text for w in state.this_turn_words],
            "chips": len(state.this_turn_words),
            "tiles_left": TILES_PER_TURN - len(state.this_turn),
            "must": must(state),
            "first_turn": all(turn == state.turn_number for _, _, turn in state.placements),
        },
        "next_player": nxt,
        "playable": playable,
        "prompt": _prompt(state),
        "history": [_turn_json(state, t) for t in state.history],
        "finished": state.finished,
        "winners": winners(state),
    }
