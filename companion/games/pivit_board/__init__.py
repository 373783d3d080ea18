"""The Pivit board game (Tyler Neylon, 2013): a pure rules engine in the manner of python-chess.

Minions slide an odd number of squares along their arrows, masters any number,
every piece pivots 90 degrees after it moves, a minion reaching a corner is
promoted, and the player with the most masters wins. Modules:

    pieces     Piece, Axis and their two-character symbols
    notation   square names and moves (parse_move / move_str)
    position   the immutable Position, the standard setups, position strings
    rules      move generation, validation, play, skips and the outcome
    board      Board with push/pop undo, and perft
    record     game records: import and export of whole games
    computer   a one-ply greedy opponent for practice that prefers progress
    engine     GAME, the event-sourced adapter the table service uses

Every rules decision is written in docs/rules/pivit-board.md.
"""
from companion.games.pivit_board.board import Board, perft
from companion.games.pivit_board.notation import (
    PASS,
    Move,
    NotationError,
    Square,
    move_str,
    parse_move,
    parse_square,
    square_name,
)
from companion.games.pivit_board.pieces import Axis, Piece, parse_piece, piece_str
from companion.games.pivit_board.position import (
    STARTING_SQUARES,
    Position,
    diagram,
    parse_position,
    position_str,
    starting_position,
)
from companion.games.pivit_board.rules import IllegalMoveError, Outcome, Ply

__all__ = [
    "Axis", "Board", "IllegalMoveError", "Move", "NotationError", "Outcome", "PASS", "Piece",
    "Ply", "Position", "STARTING_SQUARES", "Square", "diagram", "move_str", "parse_move",
    "parse_piece", "parse_position", "parse_square", "perft", "piece_str", "position_str",
    "square_name", "starting_position",
]
