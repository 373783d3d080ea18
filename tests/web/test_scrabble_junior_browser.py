"""Scrabble Junior on two phones: Playwright driving Debian's Chromium at a phone viewport against a
real `companion serve`, each phone seeing the other's taps live. Screenshots are kept in
test-artifacts/scrabble-junior/.

- Digital tiles, the printed board (101 tiles): the host makes the table on the home page and
  the phones join through the QR code. A whole game is too long to tap in a test (about 105
  covers), so it is driven mostly through the API: the first turns are tapped on the phones
  (a square played out of order, the strategy-tip warning, an undo), the middle goes through
  the API, and the last fifteen turns are tapped again, which for this seed hold the decisive
  parts: an exchange chosen tile by tile, one-tile turns, automatic passes and the last tile.
- Real tiles, a small custom board (27 tiles, made through the API since the home page's
  one-line fields cannot hold a layout): the whole game is tapped on the phones, with an
  exchange and a turn ended after one tile.

Both games end with the winner and every player's chips checked on both phones against a
recount from the turns (a word's chip goes to whoever covered its last open letter).
Skipped where Chromium is absent, unless COMPANION_REQUIRE_BROWSER=1 (as in test_browser.py,
whose server, browser and joining helpers this module reuses).
"""
from __future__ import annotations

import re

import pytest

# `server` (a real `companion serve`) and `browser` (Chromium) are conftest.py's fixtures.
from .browser import PIN, ROOT, call_api, create_table, join  # noqa: E402

GAME_ID = "scrabble-junior"
ARTIFACTS = ROOT / "test-artifacts" / GAME_ID
SEED = 20
# With `choose` below, this seed's game has 61 turns: from turn 47 on (tapped on the phones)
# come an exchange, one-tile turns, automatic passes and the last tile.
TAPPED_FROM = 46  # turns played before the phones take over again

SMALL_BOARD = """\
# A small board for a whole game tapped in a test: 8 words, 27 letters.
PIZZA Aa H
PEAR Aa V
ZEBRA Ad V
RAT Da H
ANT Ea V
BEE Cd H
APPLE Ed H
TOAST Ga H
"""

pytestmark = pytest.mark.browser


class Shots:
    def __init__(self, name):
        self.dir = ARTIFACTS / name
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("*.png"):
            old.unlink()
        self.n = 0

    def __call__(self, page, label):
        self.n += 1
        page.screenshot(path=str(self.dir / f"{self.n:02d}-{label}.png"), full_page=True)


def no_shot(page, label):
    """For the joining phones: a full-page screenshot costs a second or two on this machine."""


# -- the API, as a scorekeeper's script would use it -------------------------------


def get_table(server, table_id):
    return call_api(server, f"/api/tables/{table_id}")


def choose(table):
    """The event this test plays next: complete the most words, then open the fewest for the
    next player, then the first square in reading order; exchange the first tiles of the rack."""
    state = table["state"]
    player = state["turn"]["player"]
    kinds = {a["type"]: a for a in table["actions"]}
    if "cover" in kinds:
        best = max(state["playable"], key=lambda p: (len(p["completes"]), -len(p["opens"])))
        return {"type": "cover", "player": player, "cell": best["cell"], "letter": best["letter"]}
    if "exchange" in kinds:
        event = {"type": "exchange", "player": player}
        rack = state["players"][player]["rack"]
        if rack is not None:
            event["tiles"] = rack[: kinds["exchange"]["count"]]
        return event
    return {"type": table["actions"][0]["type"], "player": player}


def chips_recounted(state):
    """Chips from the turns alone: the turn that covers a word's last open letter takes its chip."""
    chips = [0] * len(state["players"])
    covered = set()
    for turn in state["history"]:
        for cell in turn["cells"]:
            covered.add(cell)
            chips[turn["player"]] += sum(
                1 for w in state["board"]["words"] if cell in w["cells"] and covered.issuperset(w["cells"]))
    return chips


# -- the phones ----------------------------------------------------------------------


def version(page):
    return int(page.locator("#table-page").get_attribute("data-version"))


def both_at(phones, number):
    """Every phone shows table version `number`: the tap reached the other phone live."""
    from playwright.sync_api import expect

    for page in phones:
        expect(page.locator("#table-page")).to_have_attribute("data-version", str(number))


def tap_square(page, cell):
    page.locator(f'#sj-board [data-cell="{cell}"]').click()


def tap_cover(page, phones, table, cell, letter):
    """Tap the square, then the panel's Cover button; returns the table everyone then shows."""
    name = table["state"]["players"][table["state"]["turn"]["player"]]["name"]
    before = version(page)
    tap_square(page, cell)
    page.get_by_role("button", name=f"{name}: cover {cell} with {letter}", exact=True).click()
    both_at(phones, before + 1)
    return page.evaluate("window.companionTable.table")


def tap_event(page, phones, table, event):
    """Play `event` (from `choose`) by tapping, as the player on `page` would."""
    if event["type"] == "cover":
        return tap_cover(page, phones, table, event["cell"], event["letter"])
    name = table["state"]["players"][event["player"]]["name"]
    before = version(page)
    if event["type"] == "exchange" and "tiles" in event:
        rack = table["state"]["players"][event["player"]]["rack"]
        for index in range(len(event["tiles"])):
            page.locator("#sj-rack button.sj-tile").nth(index).click()
        assert [rack[i] for i in range(len(event["tiles"]))] == event["tiles"]
        page.get_by_role("button", name=f"{name}: exchange {' and '.join(event['tiles'])}", exact=True).click()
    elif event["type"] == "exchange":
        page.get_by_role("button", name=f"{name}: exchange 2 tiles", exact=True).click()
    elif event["type"] == "pass":
        page.get_by_role("button", name=f"{name}: pass", exact=True).click()
    else:
        raise AssertionError(f"no button for {event}")
    both_at(phones, before + 1)
    return page.evaluate("window.companionTable.table")


def phone_of(phones, table):
    """Each player taps on their own phone."""
    return phones[table["state"]["turn"]["player"]]


def check_the_warning(page, state, risky, shots):
    """The rulebook's strategy tip on the tapped square: who could then complete which word, and where."""
    from playwright.sync_api import expect

    tap_square(page, risky["cell"])
    letters = {c["id"]: c["letter"] for c in state["board"]["cells"]}
    for opened in risky["opens"]:
        tiles = " and ".join(f"{letters[c]} on {c}" for c in opened["cells"])
        held = " if they hold it" if state["tiles"] == "real" else ""
        expect(page.locator("#sj-pick-warning")).to_contain_text(
            f"{opened['name']} could then complete {opened['word']} with {tiles}{held}.")
        for cell in opened["cells"]:
            expect(page.locator(f'#sj-board [data-cell="{cell}"]')).to_have_class(re.compile(r"\bdanger\b"))
    expect(page.locator("#sj-pick-warning")).to_contain_text("Careful:")
    expect(page.locator(f'#sj-board [data-cell="{risky["cell"]}"]')).to_have_attribute("data-mark", re.compile("!"))
    shots(page, "warning")
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("#sj-pick")).to_be_hidden()


def check_the_end(phones, table, shots):
    from playwright.sync_api import expect

    state = table["state"]
    chips = chips_recounted(state)
    assert state["finished"] and state["tiles_on_board"] == state["tiles_total"]
    assert [p["chips"] for p in state["players"]] == chips == state["scores"]
    assert sum(chips) == len(state["board"]["words"])
    best = max(chips)
    winners = [i for i, c in enumerate(chips) if c == best]
    assert state["winners"] == winners
    names = [state["players"][i]["name"] for i in winners]
    banner = (f"{' and '.join(names)} share the win with {best} chips each!" if len(names) > 1
              else f"{names[0]} wins with {best} chips!")
    for page in phones:
        expect(page.locator("#sj-prompt")).to_have_text(
            f"The game is over: all {state['tiles_total']} tiles are on the board.")
        expect(page.locator("#sj-winner")).to_have_text(banner)
        for i, c in enumerate(chips):
            expect(page.locator(f'#sj-players li[data-player="{i}"] .chips')).to_have_text(str(c))
        expect(page.locator('#sj-facts [data-fact="board"]')).to_contain_text(
            f"{state['tiles_total']} of {state['tiles_total']}")
        expect(page.locator('#sj-facts [data-fact="pool"]')).to_contain_text("Pool: 0 tiles")
        assert page.locator("#table-page").get_attribute("data-finished") == "1"
        assert page.locator("#sj-board button.playable").count() == 0
    for i, page in enumerate(phones):
        shots(page, f"game-over-{state['players'][i]['name']}")
        assert page.errors == [], page.errors


# -- the games -------------------------------------------------------------------------


@pytest.mark.long  # the game with real tiles stays in the quick suite
def test_two_phones_play_a_whole_game_with_digital_tiles(browser, server):
    """Mostly through the API: the first turns and the last fifteen are tapped (see the module docstring)."""
    from playwright.sync_api import expect

    shots = Shots("digital")
    url = create_table(browser, server, ["Ann", "Bob"], shots, game=GAME_ID, seed=SEED)
    table_id = url.rstrip("/").rsplit("/", 1)[1]
    ann = join(browser, url, "Ann", no_shot)
    bob = join(browser, url, "Bob", no_shot)
    phones = [ann, bob]
    table = get_table(server, table_id)
    assert table["options"]["seed"] == SEED and table["state"]["tiles"] == "digital"

    for page in phones:
        expect(page.locator("#sj-prompt")).to_have_text("Ann: cover two letters")
        expect(page.locator('#sj-facts [data-fact="pool"]')).to_have_text("Pool: 87 tiles")
        expect(page.locator('#sj-facts [data-fact="kitty"]')).to_have_text("Kitty: 44 chips")
        expect(page.locator("#sj-board button.sj-sq")).to_have_count(101)
    expect(ann.locator("#sj-who")).to_have_text("Your turn!")
    expect(bob.locator("#sj-who")).to_have_text("Waiting for Ann. You can still tap for them.")
    # The racks are face up (the rulebook's tip relies on it): Bob's phone shows Ann's tiles.
    expect(bob.locator("#sj-rack .sj-tile")).to_have_text(table["state"]["players"][0]["rack"])

    # Bigger squares for small fingers: the board then scrolls sideways; back to the whole board.
    bob.get_by_role("button", name="Bigger squares").click()
    expect(bob.locator("#sj-board")).to_have_attribute("data-zoom", "1")
    expect(bob.get_by_role("button", name="Whole board")).to_have_attribute("aria-pressed", "true")
    assert bob.evaluate("(w => w.scrollWidth > w.clientWidth)(document.getElementById('sj-board-wrap'))")
    assert bob.locator('[data-cell="Je"]').bounding_box()["width"] >= 44
    bob.get_by_role("button", name="Whole board").click()
    expect(bob.locator("#sj-board")).to_have_attribute("data-zoom", "0")
    assert bob.evaluate("(w => w.scrollWidth <= w.clientWidth)(document.getElementById('sj-board-wrap'))")

    # Letters go in order: the T at the end of JACKET cannot come first, and the page says why.
    tap_square(ann, "Oe")
    expect(ann.locator("#sj-pick-why")).to_have_text(
        "Play letters in order: cover the J of JACKET (Je) before the T on Oe.")
    expect(ann.locator("#sj-pick-cover")).to_be_hidden()
    shots(ann, "out-of-order")
    ann.get_by_role("button", name="Close").click()
    expect(ann.locator("#sj-pick")).to_be_hidden()

    # Ann's first tile, tapped; Bob's phone shows it at once, and Bob can undo it from there.
    first = choose(table)
    table = tap_cover(ann, phones, table, first["cell"], first["letter"])
    square = f'#sj-board [data-cell="{first["cell"]}"]'
    expect(bob.locator(square)).to_have_class(re.compile(r"\bcovered\b.*\bthis-turn\b"))
    expect(bob.locator("#sj-this-turn")).to_contain_text(f"This turn: {first['letter']} on {first['cell']}")
    before = version(bob)
    bob.get_by_role("button", name="Undo cover by Ann").click()
    both_at(phones, before + 1)
    expect(ann.locator(square)).not_to_have_class(re.compile(r"\bcovered\b"))
    table = get_table(server, table_id)

    # Ann's and Bob's first turns, tapped.
    while table["state"]["turn"]["number"] < 3:
        table = tap_event(phone_of(phones, table), phones, table, choose(table))

    # The middle of the game through the API (the phones follow on the stream).
    while len(table["state"]["history"]) < TAPPED_FROM or table["state"]["turn"]["covered"]:
        table = call_api(server, f"/api/tables/{table_id}/actions", choose(table))
    both_at(phones, table["version"])

    # The last turns, tapped: whatever the rules ask for, each player on their own phone.
    tail_start = len(table["state"]["history"])
    warned = False
    while not table["finished"]:
        page = phone_of(phones, table)
        risky = next((p for p in table["state"]["playable"] if p["opens"]), None)
        if risky and not warned:
            check_the_warning(page, table["state"], risky, shots)
            warned = True
        event = choose(table)
        if event["type"] == "exchange":
            expect(page.locator("#sj-prompt")).to_contain_text("cannot play: exchange two tiles")
            shots(page, "exchange")
        table = tap_event(page, phones, table, event)
    assert warned
    tail = table["state"]["history"][tail_start:]
    kinds = [t["kind"] for t in tail]
    assert "exchange" in kinds and "pass" in kinds, kinds
    assert any(t["kind"] == "play" and len(t["cells"]) == 1 for t in tail)
    auto = next(t for t in tail if t["kind"] == "pass")
    assert auto["auto"]
    expect(ann.locator("#sj-history")).to_contain_text(
        f"{table['state']['players'][auto['player']]['name']} passed (no tile fits and the pool is empty).")
    check_the_end(phones, table, shots)
    for page in phones:
        page.context.close()


def test_two_phones_tap_a_whole_game_with_real_tiles(browser, server):
    """Every turn tapped on the phones; the companion only counts the box's tiles."""
    from playwright.sync_api import expect

    shots = Shots("real")
    created = call_api(server, "/api/tables", {
        "game": GAME_ID, "players": ["Ann", "Bob"],
        "options": {"tiles": "real", "layout_text": SMALL_BOARD, "pin": PIN}})
    url = f"{server}/tables/{created['id']}"
    ann = join(browser, url, "Ann", no_shot)
    bob = join(browser, url, "Bob", no_shot)
    phones = [ann, bob]
    table = get_table(server, created["id"])
    for page in phones:
        expect(page.locator("#sj-board button.sj-sq")).to_have_count(27)
        expect(page.locator("#sj-zoom")).to_be_hidden()  # 9 columns fit a phone at full size
        expect(page.locator('#sj-facts [data-fact="pool"]')).to_have_text("Pool: 13 tiles")
        expect(page.locator('#sj-players li[data-player="1"] .sj-rack-count')).to_have_text("7 tiles on the rack")
        expect(page.locator("#sj-rule")).to_contain_text("First turn")

    # Ann's tiles fit nowhere (she says so): she exchanges two with the pool.
    ann.get_by_role("button", name="Ann: exchange 2 tiles", exact=True).click()
    both_at(phones, 1)
    expect(bob.locator("#sj-last")).to_have_text("Last turn: Ann exchanged 2 tiles with the pool.")
    table = get_table(server, created["id"])
    # Bob can place only one tile: he covers it and ends his turn, drawing one.
    first = choose(table)
    table = tap_cover(bob, phones, table, first["cell"], first["letter"])
    expect(ann.locator("#sj-prompt")).to_have_text("Bob: cover a second letter, or end the turn if you cannot")
    bob.get_by_role("button", name="Bob: end the turn after one tile", exact=True).click()
    both_at(phones, 3)
    expect(ann.locator("#sj-last")).to_have_text(
        f"Last turn: Bob covered {first['letter']} on {first['cell']}; drew 1.")
    expect(ann.locator('#sj-players li[data-player="1"] .sj-rack-count')).to_have_text("7 tiles on the rack")
    expect(ann.locator('#sj-facts [data-fact="pool"]')).to_have_text("Pool: 12 tiles")
    table = get_table(server, created["id"])

    warned = False
    while not table["finished"]:
        page = phone_of(phones, table)
        state = table["state"]
        # With real tiles the racks are unknown: the tip warns of words one letter from done.
        risky = next((p for p in state["playable"] if p["opens"]), None)
        if risky and not warned:
            check_the_warning(page, state, risky, shots)
            warned = True
        table = tap_event(page, phones, table, choose(table))
    assert warned
    check_the_end(phones, table, shots)
    for page in phones:
        page.context.close()
