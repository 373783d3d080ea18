"""Scrabble Junior: the word board, the cover rule, turn rules and chip counting.

- `layout`: the board as words and squares, its text format and loader.
- `rules`: the cover rule and completion, pure functions of the covered squares.
- `engine`: the event-sourced rules and state: turns, draws, exchanges, chips.
- `advice`: the rulebook's strategy tip (would a play let the next player complete a word?).
- `view`: what the phones see (`to_json`), warnings included.
- `game`: `GAME`, the object the table service runs, on top of the others.

Each module imports only the ones listed before it.
"""
