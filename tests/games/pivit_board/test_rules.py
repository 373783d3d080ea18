"""Table-driven cases from the Pivit rulebook (003) and its Visual Guide.

Positions are drawn as rows of cells, top rank first: ``..`` is an empty
square, otherwise a piece symbol (``a|`` first player's minion pointing up and
down, ``B-`` second player's master pointing sideways).
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from companion.games.base import OptionError, RuleError
from companion.games.pivit_board import (
    STARTING_SQUARES,
    Board,
    IllegalMoveError,
    parse_move,
    parse_position,
    parse_square,
    perft,
    starting_position,
)
from companion.games.pivit_board import rules


def drawn(*rows: str, turn: str = "a", players: int = 2, firsts: str = "-") -> str:
    """A position string from a drawing of the board."""
    ranks = []
    for row in rows:
        text, empty = "", 0
        for cell in row.split():
            if cell == "..":
                empty += 1
                continue
            text += (str(empty) if empty else "") + cell
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return f"{'/'.join(ranks)} {turn} {players} {firsts}"


def board_of(*rows: str, **kw) -> Board:
    return Board(drawn(*rows, **kw))


def push(board: Board, text: str):
    """Play `text` and return the Ply saying what it did."""
    board.push_str(text)
    return board.peek()


# A 6x6 board with one minion of each player, used by many cases below.
LONE = (
    ".. .. .. .. .. ..",
    ".. .. .. .. .. ..",
    ".. .. .. .. .. ..",
    ".. .. .. .. .. ..",
    ".. a| .. .. b- ..",
    ".. .. .. .. .. ..",
)


def with_pieces(*placed: tuple[str, str], base=LONE, **kw) -> Board:
    """The LONE board with extra pieces placed, e.g. ("b3", "b-").

    Owners of placed masters join the first-master order unless `firsts` is given.
    """
    owners = "".join(dict.fromkeys(symbol[0].lower() for _, symbol in placed if symbol[0].isupper()))
    kw.setdefault("firsts", owners or "-")
    cells = [row.split() for row in base]
    size = len(cells)
    for name, symbol in placed:
        f, r = parse_square(name, size)
        cells[size - 1 - r][f] = symbol
    return board_of(*(" ".join(row) for row in cells), **kw)


LEGAL = [
    # (rulebook words, extra pieces, move, piece then on the landing square)
    ("minions move an odd number of squares: 1", (), "b2-b3", "a-"),
    ("minions move an odd number of squares: 3", (), "b2-b5", "a-"),
    ("either way along the axis", (), "b2-b1", "a-"),
    ("rotate after moving: vertical becomes horizontal", (("c4", "a-"),), "c4-d4", "a|"),
    ("masters move any number of squares", (("b2", "A|"),), "b2-b4", "A-"),
    ("masters slide the whole board", (("b2", "A|"),), "b2-b6", "A-"),
    ("land on enemy = capture", (("b5", "b-"),), "b2-b5", "a-"),
    ("a minion may capture an enemy master", (("b3", "B-"),), "b2-b3", "a-"),
    ("a master captures at an even distance", (("b2", "A|"), ("b4", "b-")), "b2-b4", "A-"),
    ("land in corner = promoted, facing as if not promoted", (("b1", "a-"),), "b1-a1", "A|"),
    ("a minion capturing on a corner is promoted", (("b6", "a-"), ("a6", "B|")), "b6-a6", "A|"),
    ("a master on a corner gains nothing", (("b1", "A-"),), "b1-a1", "A|"),
]


@pytest.mark.parametrize(("rule", "placed", "text", "landed"), LEGAL, ids=[case[0] for case in LEGAL])
def test_legal_moves_from_the_rulebook(rule, placed, text, landed):
    board = with_pieces(*placed)
    move = parse_move(text, 6)
    assert move in board.legal_moves
    board.push(move)
    assert board.piece_at(move.to_square).symbol == landed
    assert board.piece_at(move.from_square) is None


ILLEGAL = [
    # (extra pieces, move, words the player is told)
    ((), "b2-b4", "minions move an odd number of squares (b2 to b4 is 2)"),
    ((), "b2-e2", "the arrows of the minion on b2 point up and down its file"),
    ((("c4", "a-"),), "c4-c5", "the arrows of the minion on c4 point left and right along its rank"),
    ((), "b2-c3", "pieces move in a straight line along their arrows, never diagonally"),
    ((("b3", "b-"),), "b2-b5", "no jumps: the piece on b3 is in the way"),
    ((("b4", "a|"),), "b2-b5", "no jumps: the piece on b4 is in the way"),
    ((("b2", "A|"), ("b3", "b-")), "b2-b4", "no jumps: the piece on b3 is in the way"),
    ((("b5", "a-"),), "b2-b5", "b5 holds your own piece; only an enemy piece can be captured"),
    ((("b4", "b-"),), "b2-b4", "minions move an odd number of squares"),
    ((), "c3-c4", "there is no piece on c3"),
    ((), "e2-e1", "the piece on e2 is player 2's; it is player 1's turn"),
    ((), "b2-b2", "a piece must move at least one square"),
]


@pytest.mark.parametrize(("placed", "text", "reason"), ILLEGAL, ids=[case[2] for case in ILLEGAL])
def test_illegal_moves_say_why(placed, text, reason):
    board = with_pieces(*placed)
    move = parse_move(text, 6)
    before = board.position
    with pytest.raises(IllegalMoveError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        board.push(move)
    assert board.position == before  # a refused move changes nothing
    assert move not in board.legal_moves
    assert isinstance(IllegalMoveError("x"), RuleError)


def test_messages_use_player_names_when_given():
    board = Board(drawn(*LONE), names=["Ann", "Ben"])
    with pytest.raises(IllegalMoveError, match="the piece on e2 is Ben's; it is Ann's turn"):
        board.push_str("e2-e1")


def test_a_slide_stops_at_the_first_piece_it_meets():
    board = with_pieces(("b4", "b-"), ("b2", "A|"))
    assert sorted(board.targets("b2")) == sorted(parse_square(s, 6) for s in ("b1", "b3", "b4"))


def test_promotion_happens_once_and_records_the_first_master():
    # Ben got the first master; Ann's master landing on a corner is no new promotion.
    board = with_pieces(("b1", "A-"), ("f6", "B|"), firsts="ba")
    ply = push(board, "b1-a1")
    assert not ply.promoted
    assert board.masters() == (1, 1)
    assert board.position.first_masters == (1, 0)


def test_first_promotion_joins_the_first_master_order():
    board = with_pieces(("b1", "a-"))
    ply = push(board, "b1-a1")
    assert ply.promoted and board.position.first_masters == (0,)
    assert board.masters() == (1, 0)


# -- turns -----------------------------------------------------------------------
THREE = (
    "..  .. .. .. .. ..",
    "..  .. .. .. .. ..",
    "..  .. c| .. .. ..",
    "..  .. .. .. .. ..",
    "..  a| .. .. b- ..",
    "..  .. .. .. .. ..",
)


def test_turns_go_clockwise_in_seating_order():
    board = board_of(*THREE, players=3)
    seen = []
    for text in ("b2-b3", "e2-d2", "c4-c3", "b3-c3"):
        seen.append(board.turn)
        board.push_str(text)
    assert seen == [0, 1, 2, 0]


STUCK_B = (
    "..  a| .. .. .. B|",
    "..  .. .. .. .. b|",
    "..  .. .. .. .. b|",
    "..  .. c| .. .. b|",
    "..  .. .. .. .. b|",
    "..  .. .. .. .. B|",
)


def test_a_player_with_no_legal_move_is_skipped():
    board = board_of(*STUCK_B, players=3, firsts="b")
    assert not rules.has_legal_move(board.position, 1)
    ply = push(board, "b6-b5")
    assert ply.skipped == (1,)
    assert board.turn == 2


def test_the_mover_plays_again_when_everyone_else_is_stuck():
    board = board_of(
        "..  .. .. .. .. B|",
        "..  .. .. .. .. b|",
        "..  .. .. .. .. b|",
        "a|  .. .. .. .. b|",
        "..  .. .. .. .. b|",
        "..  .. .. .. .. B|",
        firsts="b",
    )
    ply = push(board, "a3-a2")  # a- now: still free to move along rank 2
    assert ply.skipped == (1,)
    assert board.turn == 0


def test_a_stuck_player_to_move_in_a_custom_start_is_skipped():
    assert parse_position(drawn(*STUCK_B, players=3, firsts="b", turn="b")).turn == 2
    written = replace(parse_position(drawn(*STUCK_B, players=3, firsts="b")), turn=1)  # as written, unsettled
    position, skipped = rules.settle(written)
    assert position.turn == 2 and skipped == (1,)


# Issue #17: the library settled a stuck player to move only on the table's path.
# "If a player cannot make any legal moves on their turn, their turn is skipped."
STUCK_TO_MOVE = "5B|/5b|/5b|/a|4b|/5b|/5B| b 2 b"  # b's pieces fill the f-file, all pointing along it
NOBODY_CAN_MOVE = "8/b-b-b-b-b-b-b-b-/8/8/8/8/a-a-a-a-a-a-a-a-/8 a 2 -"  # two full ranks, all sideways


def test_parsing_a_position_passes_the_turn_on_from_a_stuck_player():
    position = parse_position(STUCK_TO_MOVE)
    assert position.turn == 0  # b cannot move, so a is to move, as in play
    assert rules.settle(position) == (position, ())  # nothing left to put right


def test_a_board_from_a_stuck_position_string_plays_on():
    board = Board(STUCK_TO_MOVE)
    assert board.turn == 0 and not board.is_game_over()
    assert sorted(map(str, (board.move_label(m) for m in board.legal_moves))) == ["a3-a2", "a3-a4", "a3-a6=M"]
    assert perft(board.position, 1) == 3
    assert board.position_str() == "5B|/5b|/5b|/a|4b|/5b|/5B| a 2 b"


def test_a_board_from_a_stuck_position_object_plays_on():
    stuck = replace(parse_position(STUCK_TO_MOVE), turn=1)  # built by hand, not parsed
    assert Board(stuck).turn == 0


def test_a_position_string_where_nobody_can_move_is_a_finished_game():
    board = Board(NOBODY_CAN_MOVE)
    assert board.is_game_over() and board.turn is None and board.legal_moves == []
    assert board.outcome() == rules.Outcome(rules.NO_MOVES, (0, 1), (0, 0))  # no masters: a shared win
    assert board.position_str() == NOBODY_CAN_MOVE.replace(" a 2 ", " - 2 ")


def test_a_player_with_no_pieces_is_out_and_no_longer_takes_turns():
    board = board_of(
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. c| .. .. ..",
        "..  a| .. .. .. ..",
        "..  b- .. .. .. ..",
        players=3,
    )
    ply = push(board, "b2xb1")
    assert ply.knocked_out == (1,) and ply.skipped == ()
    assert board.turn == 2
    assert board.position.players_in() == (0, 2)
    assert board.outcome() is None  # two players remain and minions remain


# -- the end ------------------------------------------------------------------------
def test_the_game_ends_when_no_minions_remain_and_most_masters_win():
    board = board_of(
        "..  .. .. .. .. ..",
        "A|  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "A-  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. b- .. .. B|",
        firsts="ba",
    )
    board.push_str("a3-c3")
    board.push_str("f1-f2")
    board.push_str("c3xc1")  # the last minion falls: Ann 2 masters, Ben 1
    assert board.is_game_over()
    outcome = board.outcome()
    assert outcome.reason == rules.NO_MINIONS
    assert outcome.masters == (2, 1) and outcome.winners == (0,)


def test_tiebreaker_first_with_a_master_wins_even_if_that_master_was_captured():
    # Ben promoted first (then lost that master); Ann promotes now: 1 master each.
    board = board_of(
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  a- .. .. .. B|",
        firsts="b",
    )
    board.push_str("b1-a1")
    outcome = board.outcome()
    assert outcome.reason == rules.NO_MINIONS
    assert outcome.masters == (1, 1)
    assert outcome.winners == (1,)


def test_only_one_player_left_wins_whatever_the_masters():
    board = board_of(
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  .. .. .. .. ..",
        "..  a| .. .. .. ..",
        "..  B- .. .. .. ..",
        firsts="b",
    )
    board.push_str("b2xb1")
    outcome = board.outcome()
    assert outcome.reason == rules.ONE_PLAYER and outcome.winners == (0,)
    assert board.masters() == (0, 0)


def test_nobody_able_to_move_ends_the_game_with_the_usual_ranking():
    position, _ = rules.settle(parse_position("A|4B|/a|4b|/a|4b|/a|4b|/a|4b|/A|4B| a 2 ba"))
    assert position.turn is None
    outcome = rules.outcome(position)
    assert outcome.reason == rules.NO_MOVES and outcome.masters == (2, 2) and outcome.winners == (1,)


def test_a_blocked_tie_with_no_masters_is_shared():
    position, _ = rules.settle(parse_position("6/a|4b|/a|4b|/a|4b|/a|4b|/6 a 2 -"))
    # The a-file minions can still step onto the corners, so not blocked yet:
    assert position.turn == 0
    blocked = parse_position("1a|2b|1/1a|2b|1/1a|2b|1/1a|2b|1/1a|2b|1/1a|2b|1 - 2 -")
    assert rules.outcome(blocked) == rules.Outcome(rules.NO_MOVES, (0, 1), (0, 0))


def test_no_moves_after_the_end():
    board = Board("A-5/6/6/6/6/4B|1 - 2 ab")
    assert board.legal_moves == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        board.push_str("a6-b6")


# -- the setups -----------------------------------------------------------------------
@pytest.mark.parametrize(("size", "players"), sorted(STARTING_SQUARES))
def test_setups_fill_the_non_corner_edge_squares_pointing_across(size, players):
    position = starting_position(size, players)
    counts = {(8, 2): 12, (8, 3): 8, (8, 4): 6, (6, 2): 8}[size, players]
    edge = {(f, r) for f in range(size) for r in range(size) if f in (0, size - 1) or r in (0, size - 1)}
    edge -= set(position.corners)
    assert {sq for sq, _ in position.pieces()} == edge
    for owner in range(players):
        mine = dict(position.pieces(owner))
        assert len(mine) == counts
        assert all(not p.master for p in mine.values())
        # arrows point across the board
        for (f, r), piece in mine.items():
            assert piece.axis == ("vertical" if r in (0, size - 1) else "horizontal")
        # as many on the bottom as on the top, on the left as on the right
        assert sum(r == 0 for _, r in mine) == sum(r == size - 1 for _, r in mine)
        assert sum(f == 0 for f, _ in mine) == sum(f == size - 1 for f, _ in mine)
        # as many on dark squares as on light ones
        assert sum((f + r) % 2 for f, r in mine) * 2 == counts
    assert position.turn == 0 and position.first_masters == ()


def _symmetries(size):
    n = size - 1
    return [
        lambda f, r: (r, n - f), lambda f, r: (n - f, n - r), lambda f, r: (n - r, f),
        lambda f, r: (n - f, r), lambda f, r: (f, n - r), lambda f, r: (r, f), lambda f, r: (n - r, n - f),
    ]


@pytest.mark.parametrize(("size", "players"), sorted(STARTING_SQUARES))
def test_setups_are_fair_under_the_symmetries_of_the_board(size, players):
    position = starting_position(size, players)
    sets = [frozenset(sq for sq, _ in position.pieces(p)) for p in range(players)]
    mapped_to = {p: {p} for p in range(players)}
    for symmetry in _symmetries(size):
        mapped = [frozenset(symmetry(*sq) for sq in s) for s in sets]
        if sorted(mapped, key=sorted) != sorted(sets, key=sorted):
            continue  # this symmetry does not respect the seating
        for p, image in enumerate(mapped):
            mapped_to[p].add(sets.index(image))
    if players in (2, 4):  # every player's squares are every other player's, seen from another side
        assert all(mapped_to[p] == set(range(players)) for p in range(players))
    else:  # three players on a square board: the first and third mirror each other
        assert mapped_to[0] == {0, 2}


@pytest.mark.parametrize(
    ("size", "players", "message"),
    [
        (6, 3, "the 6x6 board is for 2 players, not 3"),
        (6, 4, "the 6x6 board is for 2 players, not 4"),
        (8, 5, "the 8x8 board is for 2 or 3 or 4 players, not 5"),
        (7, 2, "the board is 6x6 or 8x8, not 7x7"),
    ],
)
def test_setups_that_do_not_exist(size, players, message):
    with pytest.raises(OptionError, match=message):
        starting_position(size, players)
