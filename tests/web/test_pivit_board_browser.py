"""Pivit, the board game, played from phones.

Through the API (the Flask test client and the service's manual clock, no browser): whole
games on the 8x8 board for 2, 3 and 4 players and on the 6x6 board for 2 (the only count it
takes), with turns lost to the per-turn clock and moves taken back and put back, each to the
end with the winner the rulebook gives.

In a real browser (Playwright driving Debian's Chromium at a phone viewport against a real
`companion serve`, as in test_browser.py): the host makes a 6x6 table on the home page, two
phones join through the address in its QR code, and a whole game is tapped on the phones,
every move in the browser (most by picking up a piece and tapping a lit target, some with the
"Computer move" button), with a move taken back and put back, each phone seeing the other's
taps live, to a tie on masters that the first-master rule decides. Then a 4-player 8x8 game
loses its first turn to the clock on the service's own timer, is played mostly through the
API, and has its decisive last four turns tapped on the phones. Screenshots are kept in
test-artifacts/pivit-board/.

The browser tests are skipped with a reason where Chromium is absent, unless
COMPANION_REQUIRE_BROWSER=1, where a missing browser fails instead (test_browser.py's rule).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.games.pivit_board.engine import GAME

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "pivit-board"
NAMES = ["Ann", "Bob", "Cleo", "Dev"]

# The real server and browser fixtures (conftest.py), the phone profile and the QR reader
# (browser.py) are shared, so every game's browser test runs the same way.
from .browser import PHONE, PIN, call_api, decode_qr  # noqa: E402


def expected_winners(state):
    """The winner from what the phones see, worked out apart from the engine's own ranking.

    The last player with pieces wins; otherwise the most masters on the board, and among
    those tied the one whose first promotion came earliest (rulebook, The end of the game).
    """
    alive = [p["index"] for p in state["players"] if p["in_game"]]
    if len(alive) == 1:
        return alive
    masters = {p: 0 for p in alive}
    for piece in state["pieces"]:
        if piece["kind"] == "master":
            masters[piece["owner"]] += 1
    best = max(masters.values())
    tied = [p for p in alive if masters[p] == best]
    first = {}
    for entry in state["history"]:
        if entry["promoted"]:
            first.setdefault(entry["player"], entry["turn"])
    ranked = sorted((first[p], p) for p in tied if p in first)
    return [ranked[0][1]] if ranked else tied


def winner_text(state, winners):
    names = [state["players"][i]["name"] for i in winners]
    return f"{' and '.join(names)} {'win' if len(names) > 1 else 'wins'} the game!"


# -- whole games through the API -------------------------------------------------------------

@pytest.mark.parametrize(("size", "players", "seed", "quiet_limit", "reason", "tied"), [
    (8, 2, 21, 0, "no minions remain", True),
    (8, 3, 18, 0, "no minions remain", True),
    (8, 4, 29, 0, "no minions remain", True),  # all four on one master: the first to promote wins
    (6, 2, 0, 0, "no minions remain", False),
    (6, 2, 7, 0, "only one player remains", False),
    (8, 2, 9, 30, "30 turns without a capture or promotion", True),  # the quiet-turn limit ends it
])
def test_whole_games_through_the_api_end_with_the_right_winner(api, service, clock, size, players, seed, quiet_limit,
                                                                reason, tied):
    table = api.create(game="pivit-board", players=NAMES[:players], board_size=size, clock_seconds=5, seed=seed,
                       quiet_limit=quiet_limit)
    tid = table["id"]
    assert table["timer"]["status"] == "running" and table["timer"]["duration_ms"] == 5000
    # The first player's clock runs out: they lose the turn, and the next player's clock starts.
    clock.advance(5)
    assert service.fire_due() == [tid]
    table = api.get(tid)
    assert table["state"]["history"][0]["text"] == "Ann ran out of time"
    assert table["state"]["turn"] == 1 and table["timer"]["status"] == "running"
    turns = 1
    while not table["finished"]:
        state = table["state"]
        assert table["actions"] == [{"type": "move", "player": state["turn"], "moves": state["moves"]}]
        origin, target = state["suggestion"].split("-")
        assert target in state["moves"][origin]
        table = api.act(tid, type="move", player=state["turn"], move=state["suggestion"])
        turns += 1
        if turns % 15 == 0 and not table["finished"]:
            # Taken back and put back: the same turn, the same player to move.
            back = api.post(f"/api/tables/{tid}/undo")
            assert len(back["state"]["history"]) == turns - 1 and back["state"]["turn"] == state["turn"]
            table = api.post(f"/api/tables/{tid}/redo")
            assert len(table["state"]["history"]) == turns
        assert turns < 400
    state = table["state"]
    assert state["outcome"]["reason"] == reason
    assert state["winners"] == expected_winners(state) == state["outcome"]["winners"]
    masters = state["outcome"]["masters"]
    if tied is not None:  # the first-master rule had a tie to break, or not
        assert (masters.count(max(masters)) > 1) == tied
    assert state["message"] == winner_text(state, state["winners"]).replace(" the game!", ": ") + state["outcome"]["reason"]
    assert state["suggestion"] is None and table["actions"] == [] and table["finished_ms"] is not None
    assert table["timer"]["status"] == "idle"  # the turn clock stops with the game
    assert "the game is over" in api.act(tid, expect=409, type="move", player=0, move="a2-b2")["error"]


def test_the_page_loads_the_board_and_its_styles(api, client):
    table = api.create(game="pivit-board", players=["Ann", "Bob"], board_size=6)
    html = client.get(f"/tables/{table['id']}").get_data(as_text=True)
    assert 'id="pb-board"' in html and "games/pivit-board.js" in html and "games/pivit-board.css" in html
    for path in ("/static/games/pivit-board.js", "/static/games/pivit-board.css"):
        assert client.get(path).status_code == 200, path


# -- phones in a real browser ------------------------------------------------------------------

class Shots:
    def __init__(self, name):
        self.dir = ARTIFACTS / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.n = 0

    def __call__(self, page, label, full=True):
        """The whole page, or (full=False) just the game: the board and what is around it."""
        self.n += 1
        path = str(self.dir / f"{self.n:02d}-{label}.png")
        if full:
            page.screenshot(path=path, full_page=True)
        else:
            page.locator("#game").screenshot(path=path)


def join(browser, url, me, shots=None):
    """A phone opens the table, says who it is (or "just watching") and unlocks with the PIN."""
    from playwright.sync_api import expect

    page = browser.new_context(**PHONE).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    page.locator("#me-select").select_option(label=me)
    page.locator("#pin-input").fill(PIN)
    page.get_by_role("button", name="Unlock").click()
    expect(page.locator("#pin-status")).to_have_text("Unlocked: this phone can tap.")
    page.errors = errors
    if shots:
        shots(page, f"joined-{me.replace(' ', '-')}", full=False)
    return page


def square(page, name):
    return page.locator(f'#pb-board [data-square="{name}"]')


def view(page):
    return page.evaluate("window.companionTable.table.state")


def tap_move(page, move):
    """Pick up the piece and tap its target, checking the target lit up first."""
    from playwright.sync_api import expect

    origin, target = move.split("-")
    square(page, origin).click()
    expect(square(page, origin)).to_have_attribute("data-state", "selected")
    expect(square(page, target)).to_have_attribute("data-state", re.compile(r"^(target|capture)$"))
    square(page, target).click()


def see_turns(phones, count):
    """Every phone shows `count` turns in its history: each sees the others' taps live.

    Checked on every animation frame rather than with expect's back-off, which would add
    a tenth of a second or more to each of a game's many turns.
    """
    for page in phones:
        page.wait_for_function("n => document.querySelectorAll('#pb-history li').length === n", arg=count,
                               timeout=10000)


def check_the_end(phones, shots, tag):
    """Both phones show the same finished game, and its winner is the rulebook's."""
    from playwright.sync_api import expect

    state = view(phones[0])
    assert state["finished"]
    winners = expected_winners(state)
    assert state["winners"] == winners
    for page in phones:
        expect(page.locator("#pb-winner")).to_have_text(winner_text(state, winners))
        expect(page.locator("#pb-computer")).to_be_hidden()
        for i in winners:
            expect(page.locator(f'#pb-players li[data-player="{i}"] .pb-badge.won')).to_have_text("★ winner")
        assert page.locator("#table-page").get_attribute("data-finished") == "1"
        assert view(page)["history"] == state["history"]
    shots(phones[0], f"{tag}-game-over")
    shots(phones[1], f"{tag}-game-over-other-phone", full=False)
    return state


@pytest.mark.browser
@pytest.mark.long  # the 8x8 four-player game below stays in the quick suite
def test_two_phones_tap_a_whole_6x6_game_to_the_end(browser, server):
    from playwright.sync_api import expect

    shots = Shots("6x6-whole-game")
    # The host makes the table on the home page.
    host = browser.new_context(viewport={"width": 1024, "height": 900}).new_page()
    host.goto(server + "/")
    host.get_by_label("Game").select_option("pivit-board")
    host.get_by_label("Player 1", exact=True).fill("Ann")
    host.get_by_label("Player 2", exact=True).fill("Bob")
    host.locator("#opt-pivit-board-board_size").fill("6")
    host.locator("fieldset.options:not([hidden]) details.advanced > summary").click()  # "More options"
    host.locator("#opt-pivit-board-seed").fill("13")
    host.get_by_label("Table PIN").fill(PIN)
    host.get_by_role("button", name="Create the table").click()
    host.wait_for_url(re.compile(r"/tables/\w+$"))
    host.locator("#invite summary").click()
    url = decode_qr(host.locator("#table-qr svg").screenshot())
    assert url == host.url
    host.context.close()

    ann = join(browser, url, "Ann", shots)
    bob = join(browser, url, "Bob", shots)
    phones = (ann, bob)
    pages = {0: ann, 1: bob}
    for page in phones:
        expect(page.locator("#pb-board button")).to_have_count(36)
        expect(page.locator("#pb-turn")).to_contain_text("Ann to move")
    expect(ann.locator("#pb-turn")).to_contain_text("your turn!")
    expect(bob.locator("#pb-hint")).to_have_text("Waiting for Ann's move.")
    # Bob sits across the table: he turns his board round to match the physical one.
    bob.get_by_role("button", name=re.compile("^Turn the board")).click()
    bob.get_by_role("button", name=re.compile("^Turn the board")).click()
    expect(bob.locator("#pb-board")).to_have_attribute("aria-label", "Board, 6 by 6, f6 at the bottom left")
    assert bob.locator("#pb-board button").first.get_attribute("data-square") == "f1"

    # Bob's phone will not move Ann's pieces for her.
    square(bob, "b1").click()
    expect(bob.locator("#pb-hint")).to_contain_text("It is Ann's turn and this phone is Bob's")
    # Ann picks up a piece: its targets light up, and only those (b1 is blocked upward at b6).
    square(ann, "b1").click()
    first = view(ann)["moves"]["b1"]
    for name in first:
        expect(square(ann, name)).to_have_attribute("data-state", "target")
    assert ann.locator('#pb-board [data-state="target"]').count() == len(first)
    shots(ann, "ann-picked-up-b1", full=False)
    square(ann, "b1").click()  # put it down again
    expect(ann.locator('#pb-board [data-state="target"]')).to_have_count(0)

    turns = 0
    took_back = False
    while not view(ann)["finished"]:
        state = view(ann)
        page = pages[state["turn"]]
        if turns % 4 in (1, 2):  # half the turns (each player's every other) the computer's button
            page.get_by_role("button", name=f"Computer move for {state['turn_name']}").click()
        else:
            tap_move(page, state["suggestion"])
        turns += 1
        see_turns(phones, turns)
        if turns == 6:
            shots(ann, "ann-after-6-turns", full=False)
            shots(bob, "bob-after-6-turns-board-turned", full=False)
        if turns == 10 and not took_back:
            # The move was a mistake: Ann's phone takes it back, Bob's puts it back.
            last = view(ann)["last_move"]
            ann.get_by_role("button", name=f"Take back {last['name']}'s {last['label']}").click()
            see_turns(phones, turns - 1)
            expect(bob.locator("#pb-turn")).to_contain_text(f"{last['name']} to move")
            shots(bob, "bob-after-take-back", full=False)
            bob.get_by_role("button", name=f"Redo move by {last['name']}").click()
            see_turns(phones, turns)
            took_back = True
        assert turns < 200
    state = check_the_end(phones, shots, "6x6")
    # This seed ends with no minions and one master each: the first-master rule decides.
    assert state["outcome"]["reason"] == "no minions remain"
    assert state["outcome"]["masters"] == [1, 1]
    assert "got a first master earliest" in ann.locator("#pb-why").inner_text()
    # Nothing more can be played: a piece tapped now is not picked up, and nothing lights up.
    square(ann, state["pieces"][0]["square"]).click()
    expect(ann.locator('#pb-board [data-state="selected"]')).to_have_count(0)
    assert ann.locator('#pb-board [data-state="target"], #pb-board [data-state="capture"]').count() == 0
    assert ann.errors == [] and bob.errors == []
    ann.context.close()
    bob.context.close()


def turns_to_the_end(table):
    """How many turns the table's game lasts if the practice computer plays every move from now.

    Replays the table's own record with its options in the engine the service runs.
    """
    players, _, events = GAME.import_record(table["state"]["record"])
    options = {k: v for k, v in table["options"].items() if k != "pin"}
    state = GAME.new_state(players, options)
    for event in events:
        state = GAME.apply(state, event)
    while not GAME.finished(state):
        state = GAME.apply(state, {"type": "move", "player": state.position.turn, "move": GAME.suggest_move(state)})
    return len(state.history)


@pytest.mark.browser
def test_phones_finish_a_four_player_8x8_game_with_the_turn_clock(browser, server):
    """Ann's phone and a second phone passed round Bob, Cleo and Dev ("just watching"). Ann's
    turn clock runs out first, on the service's own timer; the middle of the game is played
    through the API; the last four turns are tapped on the phones, to a four-way tie on
    masters that the first-master rule decides. (The 2- and 3-player 8x8 games are played to
    the end through the API above.)"""
    from playwright.sync_api import expect

    shots = Shots("8x8-4-players")
    clock = 5
    options = {"board_size": 8, "seed": 29, "clock_seconds": clock, "pin": PIN}
    table = call_api(server, "/api/tables", {"game": "pivit-board", "players": NAMES, "options": options})
    url = server + "/tables/" + table["id"]
    ann = join(browser, url, "Ann")
    other = join(browser, url, "just watching")
    phones = (ann, other)
    # Nobody moves: Ann's turn clock runs out on the service's timer, on both phones at once.
    for page in phones:
        expect(page.locator("#pb-clock")).to_contain_text(f"Turn clock: {clock} s a turn")
        expect(page.locator("#pb-history li").first).to_contain_text("Ann ran out of time", timeout=clock * 1000 + 4000)
        expect(page.locator("#pb-turn")).to_contain_text("Bob to move")
    expect(ann.locator("#pb-hint")).to_have_text("Waiting for Bob's move.")
    expect(other.locator("#pb-hint")).to_contain_text("Tap one of Bob's pieces")
    shots(other, "ann-ran-out-of-time", full=False)
    table = call_api(server, f"/api/tables/{table['id']}")
    total = turns_to_the_end(table)
    while len(table["state"]["history"]) < total - 4:
        state = table["state"]
        table = call_api(server, f"/api/tables/{table['id']}/actions",
                         {"type": "move", "player": state["turn"], "move": state["suggestion"]})
    see_turns(phones, total - 4)
    shots(other, "before-the-last-moves", full=False)
    while not view(ann)["finished"]:
        state = view(ann)
        tap_move(ann if state["turn"] == 0 else other, state["suggestion"])
        see_turns(phones, len(state["history"]) + 1)
    state = check_the_end(phones, shots, "8x8-4")
    # (With the clock on, a phone slower than 5 s would lose a turn and change the game, so the
    # end is checked against the rules, not against a fixed script.)
    assert state["outcome"]["reason"] == "no minions remain"
    for page in phones:
        for p in state["players"]:
            expect(page.locator(f'#pb-players li[data-player="{p["index"]}"] .masters')).to_have_text(str(p["masters"]))
    assert ann.errors == [] and other.errors == []
    ann.context.close()
    other.context.close()
