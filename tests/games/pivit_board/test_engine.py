"""GAME, the event-sourced adapter: options, events, what the phones see, and whole games."""
from __future__ import annotations

import random

import pytest

from companion.games import get_game
from companion.games.base import OptionError, RuleError
from companion.games.pivit_board import STARTING_SQUARES, computer, move_str, parse_position, rules
from companion.games.pivit_board.engine import DEFAULT_QUIET_LIMIT, GAME, quiet_reason

NAMES = ["Ann", "Ben", "Cleo", "Dev"]


def new(players=2, **options):
    return GAME.new_state(NAMES[:players], options)


def move(state, text, player=None):
    return GAME.apply(state, {"type": "move", "player": state.position.turn if player is None else player, "move": text})


def test_registered_under_its_id():
    assert get_game("pivit-board") is GAME
    assert (GAME.min_players, GAME.max_players) == (2, 4)


def test_default_options_set_up_the_8x8_board():
    state = new()
    assert GAME.default_options() == {"board_size": 8, "clock_seconds": 0, "quiet_limit": 100, "start": "", "seed": 0}
    view = GAME.to_json(state)
    assert view["board_size"] == 8 and len(view["pieces"]) == 24
    assert view["turn"] == 0 and view["turn_name"] == "Ann" and view["message"] == "Ann to move"
    assert view["corners"] == ["a1", "h1", "a8", "h8"]
    assert view["winners"] == [] and view["scores"] == [0, 0] and not view["finished"]


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (2, {"board_size": 7}, "option 'board_size' must be 6 or 8"),
        (3, {"board_size": 6}, "the 6x6 board is for 2 players, not 3"),
        (2, {"clock_seconds": 2}, "option 'clock_seconds' must be 0 \\(no clock\\) or 5 to 3600"),
        (2, {"clock_seconds": True}, "option 'clock_seconds'"),
        (2, {"quiet_limit": 5}, "option 'quiet_limit' must be 0 \\(no limit\\) or 10 to 1000"),
        (2, {"colour": "red"}, "unknown option 'colour'"),
        (2, {"seed": 1.5}, "option 'seed' must be a number or text"),
        (2, {"start": 12}, "option 'start' must be a position string"),
        (2, {"start": "nonsense"}, "option 'start': a position is four fields"),
        (2, {"start": "1a|4/6/6/6/6/1b|4 a 2 -"}, "option 'start' is a 6x6 position but the board is 8x8"),
        (3, {"board_size": 6, "start": "1a|4/6/6/6/6/1b|4 a 2 -"}, "option 'start' is for 2 players, not 3"),
        (2, {"board_size": 6, "start": "1a|4/6/6/6/6/1b|4 a 3 -"}, "option 'start' is for 3 players, not 2"),
    ],
)
def test_bad_options(players, options, message):
    with pytest.raises(OptionError, match=message):
        new(players, **options)


@pytest.mark.parametrize("players", [["Ann"], NAMES + ["Eve"], "Ann,Ben", [1, 2]])
def test_bad_player_lists(players):
    with pytest.raises(OptionError):
        GAME.new_state(players, {})


def test_the_service_pin_option_is_tolerated():
    assert new(pin="1234").players == ("Ann", "Ben")


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"type": "move", "player": 1, "move": "c1-c2"}, "it is Ann's turn, not Ben's"),
        ({"type": "move", "player": 7, "move": "b1-b2"}, "there is no player 7"),
        ({"type": "move", "player": True, "move": "b1-b2"}, "there is no player True"),
        ({"type": "move", "move": "b1-b2"}, "a move event names its player"),
        ({"type": "move", "player": 0}, "a move event needs a move like b1-b4"),
        ({"type": "move", "player": 0, "move": "b1-b3"}, "minions move an odd number of squares"),
        ({"type": "move", "player": 0, "move": "b1-z9"}, "z9 is not on the 8x8 board"),
        ({"type": "move", "player": 0, "move": "c1-c2"}, "the piece on c1 is Ben's; it is Ann's turn"),
        ({"type": "timer-expired"}, "no turn clock is running"),
        ({"type": "resign", "player": 0}, "has no 'resign' event"),
        ({"player": 0}, "has no None event"),
    ],
)
def test_events_the_rules_refuse(event, message):
    state = new()
    with pytest.raises(RuleError, match=message):
        GAME.apply(state, event)


def test_apply_never_mutates_its_input():
    state = new(board_size=6)
    before = GAME.to_json(state)
    after = move(state, "b1-b2")
    assert GAME.to_json(state) == before
    assert after != state and len(after.history) == 1


def test_the_view_a_phone_draws_from():
    state = new(board_size=6)
    state = move(state, "b1-b2")
    view = GAME.to_json(state)
    b2 = next(p for p in view["pieces"] if p["square"] == "b2")
    assert b2 == {
        "square": "b2", "file": 1, "rank": 1, "owner": 0, "kind": "minion", "axis": "horizontal",
        "symbol": "a-", "targets": ["c2", "e2", "a2"], "movable": False,  # a2: a capture; Ben to move
    }
    c6 = next(p for p in view["pieces"] if p["square"] == "c6")
    assert c6["movable"] and c6["targets"] == ["c5", "c3"]
    assert view["moves"]["c6"] == ["c5", "c3"]
    assert GAME.actions(state) == [{"type": "move", "player": 1, "moves": view["moves"]}]
    assert view["history"][0]["text"] == "Ann b1-b2"
    assert view["last_move"]["from"] == "b1" and view["last_move"]["to"] == "b2"
    assert [p["minions"] for p in view["players"]] == [8, 8]
    assert view["position"] == "1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/a-4a-/b-a-4b-/3a|b|1 b 2 -".replace(
        "/a-4a-/b-a-4b-/3a|b|1", "/b-a-3b-/3a|b|1"
    ) or view["position"]
    assert parse_position(view["position"]).squares == state.position.squares


def test_history_tells_of_skipped_players():
    state = new(3, start="1a|5B|/7b|/2a-4b|/7b|/7b|/4c|2b|/7b|/1a|c-4B| a 3 b")
    state = move(state, "b1-b2")  # Ben's pieces fill the h-file: Ben is stuck
    view = GAME.to_json(state)
    assert view["history"][-1]["skipped"] == [1]
    assert view["history"][-1]["text"] == "Ann b1-b2; Ben has no legal move and is skipped"
    assert view["turn_name"] == "Cleo"
    state = move(state, "e3-e4")
    assert GAME.to_json(state)["turn_name"] == "Ann"
    with pytest.raises(RuleError, match="it is Ann's turn, not Ben's"):
        move(state, "h2-h3", player=1)


def test_history_tells_of_captures_knockouts_and_promotions():
    state = new(3, start="8/8/8/4c|3/8/1b-6/1a|6/1a-6 a 3 -")
    state = move(state, "b2xb3")
    view = GAME.to_json(state)
    assert view["history"][-1]["text"] == "Ann b2xb3, capturing Ben's minion; Ben is out"
    assert view["history"][-1]["knocked_out"] == [1] and view["history"][-1]["skipped"] == []
    assert view["turn_name"] == "Cleo"
    state = move(state, "e5-e6")
    state = move(state, "b1-a1")
    view = GAME.to_json(state)
    assert view["history"][-1]["text"] == "Ann b1-a1=M, promoted to master"
    ann, ben, cleo = view["players"]
    assert ann["captured"] == [{"owner": 1, "kind": "minion", "axis": "horizontal", "symbol": "b-"}]
    assert ann["masters"] == 1 and ann["first_master_turn"] == 3 and ann["first_master_order"] == 1
    assert not ben["in_game"] and ben["lost"] == 1
    assert cleo["in_game"] and cleo["first_master_turn"] is None
    assert view["turn_name"] == "Cleo"


def test_timer_clock_passes_the_turn():
    state = new(board_size=6, clock_seconds=30)
    assert GAME.timer_request(state) == ("turn-0", 30.0)
    state = GAME.apply(state, {"type": "timer-expired"})
    assert state.position.turn == 1
    assert GAME.timer_request(state) == ("turn-1", 30.0)
    view = GAME.to_json(state)
    assert view["history"][0]["timeout"] and view["history"][0]["text"] == "Ann ran out of time"
    assert "1. --" in view["record"]
    assert GAME.timer_request(new()) is None


def test_quiet_limit_ends_a_game_that_goes_nowhere():
    # A lone minion that cannot reach a corner flees a master forever: the table's
    # quiet-turn limit ends it, and the usual ranking decides.
    start = "8/8/8/8/8/8/8/2B|1a-3 b 2 b"
    state = new(start=start, quiet_limit=10)
    shuttle = ["c1-c2", "e1-f1", "c2-d2", "f1-f2", "d2-d1", "f2-e2", "d1-c1", "e2-e1"]
    turns = 0
    while not GAME.finished(state):
        state = move(state, shuttle[turns % len(shuttle)])
        turns += 1
    assert turns == 10
    view = GAME.to_json(state)
    assert view["outcome"] == {
        "reason": quiet_reason(10), "winners": [1], "winner_names": ["Ben"], "masters": [0, 1],
    }
    assert view["message"] == "Ben wins: 10 turns without a capture or promotion"
    assert GAME.actions(state) == [] and GAME.timer_request(state) is None
    with pytest.raises(RuleError, match="the game is over"):
        move(state, "c1-c2")
    assert '[Termination "10 turns without a capture or promotion"]' in view["record"]


def test_by_default_a_game_that_cannot_progress_ends_after_100_quiet_turns():
    # Issue #17: with no limit the shuttle below never ends, and the rules have no draw.
    start = "8/8/8/8/8/8/8/2B|1a-3 b 2 b"
    state = new(start=start)
    assert state.options.quiet_limit == DEFAULT_QUIET_LIMIT == 100
    shuttle = ["c1-c2", "e1-f1", "c2-d2", "f1-f2", "d2-d1", "f2-e2", "d1-c1", "e2-e1"]
    turns = 0
    while not GAME.finished(state) and turns < 1000:
        state = move(state, shuttle[turns % len(shuttle)])
        turns += 1
    assert turns == 100
    assert GAME.outcome(state) == rules.Outcome(quiet_reason(100), (1,), (0, 1))  # scored as usual: b's master
    assert '[QuietLimit "100"]' in GAME.export_record(state)


def test_the_quiet_limit_can_still_be_turned_off():
    state = new(start="8/8/8/8/8/8/8/2B|1a-3 b 2 b", quiet_limit=0)
    shuttle = ["c1-c2", "e1-f1", "c2-d2", "f1-f2", "d2-d1", "f2-e2", "d1-c1", "e2-e1"]
    for turn in range(400):
        state = move(state, shuttle[turn % len(shuttle)])
    assert not GAME.finished(state) and state.quiet == 400
    assert "QuietLimit" not in GAME.export_record(state)


def test_the_computer_move_button_ends_the_issue_example_without_the_limit():
    # The issue's position: a's last minion loses whether it promotes (a tie on masters
    # that b's earlier first master breaks) or is captured. The computer concedes.
    state = new(start="3B|4/8/8/8/8/8/8/3a-4 a 2 ba", quiet_limit=0)
    for _ in range(1000):
        if GAME.finished(state):
            break
        state = move(state, GAME.suggest_move(state))
    assert GAME.finished(state) and len(state.history) < 100
    assert GAME.outcome(state).reason == rules.NO_MINIONS and GAME.outcome(state).winners == (1,)


def test_the_state_keeps_the_positions_since_the_last_capture_or_promotion():
    state = new(board_size=6, start="6/6/1a|2a-1/6/6/1b-2B|1 a 2 b")
    for text in ("e4-d4", "e1-e2", "b4xb1", "e2-f2", "d4-d5"):
        state = move(state, text)
    board = GAME.board(state)
    assert state.recent == tuple(board.positions[3:]) and state.quiet == 2


def test_a_record_without_a_quiet_limit_tag_is_imported_without_a_limit():
    _, options, _ = GAME.import_record('[Board "6x6"]\n[Player1 "A"]\n[Player2 "B"]\n\n1. b1-b2\n')
    assert options["quiet_limit"] == 0
    _, options, _ = GAME.import_record(GAME.export_record(new(board_size=6)))
    assert options["quiet_limit"] == DEFAULT_QUIET_LIMIT


def test_records_export_and_import_as_events():
    state = new(3, clock_seconds=20, quiet_limit=50, seed=5)
    for _ in range(40):
        if random.Random(len(state.history)).random() < 0.1:
            state = GAME.apply(state, {"type": "timer-expired"})
        else:
            state = move(state, GAME.suggest_move(state))
    players, options, events = GAME.import_record(GAME.export_record(state))
    assert players == ["Ann", "Ben", "Cleo"]
    assert options["clock_seconds"] == 20 and options["quiet_limit"] == 50
    replay = GAME.new_state(players, options)
    for event in events:
        replay = GAME.apply(replay, event)
    assert replay.position == state.position and replay.history == state.history


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Board "6x6"]\n[Player1 "A"]\n[Player2 "B"]\n\n1. --\n', "turns lost to the clock \\(--\\) but no Clock tag"),
        ('[Board "6x6"]\n[Player1 "A"]\n[Player2 "B"]\n[Clock "soon"]\n', "the Clock tag must be a whole number"),
        ('[Board "6x6"]\n[Player1 "A"]\n[Player2 "B"]\n\n1. b1-b3\n', "minions move an odd number"),
    ],
)
def test_bad_records_to_import(text, message):
    with pytest.raises(RuleError, match=message):
        GAME.import_record(text)


def test_suggest_move_takes_a_free_master():
    state = new(board_size=6, start="6/1B-4/6/6/1a|4/4b|1 a 2 b")
    assert GAME.suggest_move(state) == "b2-b5"
    assert GAME.suggest_move(state) == GAME.suggest_move(state)  # deterministic


# -- whole games ------------------------------------------------------------------------
def expected_winners(view):
    """The winner worked out from what the phones see, independently of the engine's ranking."""
    alive = [p for p in view["players"] if p["in_game"]]
    if len(alive) == 1:
        return [alive[0]["index"]]
    masters = {p["index"]: 0 for p in alive}
    for piece in view["pieces"]:
        if piece["kind"] == "master":
            masters[piece["owner"]] += 1
    best = max(masters.values())
    tied = [p for p in masters if masters[p] == best]
    first_master = {}
    for entry in view["history"]:
        if entry["promoted"]:
            first_master.setdefault(entry["player"], entry["turn"])
    ranked = sorted((first_master[p], p) for p in tied if p in first_master)
    return [ranked[0][1]] if ranked else sorted(tied)


@pytest.mark.parametrize(("size", "players"), sorted(STARTING_SQUARES))
@pytest.mark.parametrize("seat_seeds", [(0, 0, 0, 0), (1, 7, 3, 9), "random"])
def test_whole_games_play_to_the_end_with_the_right_winner(size, players, seat_seeds):
    state = new(players, board_size=size, quiet_limit=200)
    rng = random.Random(f"{size}/{players}")
    for _ in range(5000):
        if GAME.finished(state):
            break
        turn = state.position.turn
        if seat_seeds == "random":
            text = rng.choice([f"{sq}-{t}" for sq, targets in GAME.actions(state)[0]["moves"].items() for t in targets])
        else:  # each seat its own practice computer
            text = move_str(computer.choose_move(state.position, seat_seeds[turn], state.recent))
        state = move(state, text)
    assert GAME.finished(state)
    view = GAME.to_json(state)
    assert view["outcome"]["winners"] == expected_winners(view) == view["winners"]
    assert view["scores"] == view["outcome"]["masters"] == [p["masters"] for p in view["players"]]
    assert view["turn"] is None and GAME.actions(state) == []
    # the record of the game replays to the same end
    players_, options, events = GAME.import_record(view["record"])
    replay = GAME.new_state(players_, options)
    for event in events:
        replay = GAME.apply(replay, event)
    assert GAME.to_json(replay)["outcome"] == view["outcome"]
