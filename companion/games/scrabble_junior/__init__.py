"""Scrabble Junior: the word board, the cover rule, turn rules and chip counting.

- `layout`: the board as words and squares, its text format and loader.
- `rules`: the cover rule and completion, pure functions of the covered squares.
- `advice`: the rulebook's strategy tip (would a play let the next player complete a word?).
- `engine`: `GAME`, the event-sourced engine the table service runs.
"""
