"""Quivit on real phones: Playwright driving Debian's Chromium at a phone viewport against a real
`companion serve`, both ways to play, every optional rule on (Random Color, Color Blocking, a
Timed turn, Drain the Deck, Double Rotation with a free link, Family Play, and the best-rotation
hint in the digital game).

Every action of both games is tapped in the browser: the table is made on the home page's form
(the teams typed as "Ann, Cy / Bob, Di"), two phones (two browser contexts) join it, and each turn
is tapped on the phone of the side whose turn it is (a Family Play team's phone taps for whichever
member rotates), except the timed turn that is left to run out on the service's timer. The plays
are chosen beforehand by running the same seeded game through the engine, so after every tap both
phones must show the engine's own words and scores: each phone sees the other's taps live. At the
end the service's event log is replayed through the engine for the winner. Screenshots are kept in
test-artifacts/quivit/.

Skipped with a reason where Chromium is absent, unless COMPANION_REQUIRE_BROWSER=1 (CI), where a
missing browser fails instead (the server and browser fixtures are test_browser.py's).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.games.quivit.game import GAME

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "quivit"

# `server` (a real `companion serve`) and `browser` (Chromium, or a skip; a failure with
# COMPANION_REQUIRE_BROWSER=1) are conftest.py's fixtures.
from .browser import PHONE, PIN, call_api, create_table, join  # noqa: E402

pytestmark = pytest.mark.browser

TIMER_SECONDS = 6  # long enough for three taps on a busy machine, short enough to wait out once

DIGITAL_PLAYERS = ["Ann", "Bob", "Cy", "Di"]
DIGITAL = {
    "mode": "digital",
    "seed": 49,  # chosen so this game has a free link to claim, a Double Rotate and a final draw
    "rounds": 2,
    "random_color": True,
    "color_blocking": True,
    "timed": True,
    "timer_seconds": TIMER_SECONDS,
    "drain_the_deck": True,
    "drain_threshold": 100,
    "double_rotation": True,
    "free_link_spends_double_rotate": False,
    "current_player_may_block": True,  # the Suns block before their own first turn
    "family_play": True,
    "teams": "Ann, Cy / Bob, Di",
    "team_names": "Suns / Moons",
    "hints": True,
}
TIMEOUT_TURN = 2  # the Moons' first turn runs out on the timer

SCOREKEEPING_PLAYERS = ["Ann", "Bob", "Cy"]
SCOREKEEPING = {
    "mode": "scorekeeping",
    "seed": 7,  # the companion's die rolls
    "rounds": 1,
    "random_color": True,
    "color_blocking": True,
    "timed": True,
    "timer_seconds": 60,
    "drain_the_deck": True,
    "drain_threshold": 112,
    "double_rotation": True,
    "free_link_spends_double_rotate": False,
    "current_player_may_block": True,  # Ann blocks before her own first turn
    "family_play": True,
    "teams": "Ann / Bob, Cy",
    "hints": True,
}
# The real cards: what each turn took, as the players record it.
SCOREKEEPING_EVENTS = [
    {"type": "block", "player": 0},
    {"type": "start-turn", "player": 0},
    {"type": "roll", "player": 0, "color": "R"},  # the real die
    {"type": "take", "player": 0, "cards": [3, 2, 1, 1], "free_link": True},
    {"type": "block", "player": 1},  # the last Color Block: the turn starts by itself
    {"type": "roll", "player": 1},  # the companion rolls
    {"type": "take", "player": 1, "cards": [2, 2, -1]},
    # 116 cards left, more than 112: a Drain the Deck round, the Bob & Cy team first, Cy rotating
    {"type": "roll", "player": 2, "color": "G"},
    {"type": "take", "player": 2, "cards": [3, 1]},
    {"type": "roll", "player": 0},
    {"type": "take", "player": 0, "cards": [3, 2, 2], "double_rotate": True},
    # 111 cards left: the game ends; Bob & Cy still hold their Double Rotate card
    {"type": "draw", "player": 1, "value": 3},
]

DIRECTION_WORDS = {"right": "right", "left": "left", "double": "twice (Double Rotate)"}
COLOR = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}


class Shots:
    def __init__(self, name):
        self.dir = ARTIFACTS / name
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("*.png"):
            old.unlink()
        self.n = 0

    def __call__(self, page, label, full=False):
        """The game's part of the page (the whole page with `full`), as the phone shows it."""
        self.n += 1
        path = str(self.dir / f"{self.n:02d}-{label}.png")
        if full:
            page.screenshot(path=path, full_page=True)
        else:
            page.locator("#game").screenshot(path=path)


def points(n):
    return f"{n} point{'' if n in (1, -1) else 's'}"


# -- the plan: the same seeded game through the engine ------------------------------------------


def choose(view, actions):
    """The digital game's next play: block once per side, roll, claim a free link, Double Rotate once, follow the hint.

    None lets the Timed turn run out. The Suns (side 0) claim the first free link they can and
    Double Rotate in the last regular round; the Moons keep their Double Rotate card for the
    final draw.
    """
    phase = view["phase"]
    if phase == "color-blocking":
        blocker = (view["turn"] - 1) % 2  # the Suns block in turn 1, the Moons in turn 2
        blocks = [a for a in actions if a["type"] == "block" and view["players"][a["player"]]["side"] == blocker]
        if blocks:
            return {"type": "block", "player": blocks[0]["player"], "card": blocks[0]["cards"][len(blocks[0]["cards"]) // 2]}
        (start,) = [a for a in actions if a["type"] == "start-turn"]
        return {"type": "start-turn", "player": start["player"]}
    if phase == "color-die":
        return {"type": "roll", "player": actions[0]["player"]}
    if phase == "turn":
        if view["turn"] == TIMEOUT_TURN:
            return None
        hints = view["hints"]
        side = view["current"]["side"]
        if side == 0 and view["sides"][0]["holds_double_rotate"]:
            claims = [h for h in hints if h["direction"] == "free-link" and h["points"] > 0]
            if claims:
                return claims[0]["event"]
            if view["round"] == view["rounds"]:
                return next(h for h in hints if h["direction"] == "double")["event"]
        return next(h for h in hints if h["direction"] in ("right", "left"))["event"]
    if phase == "final-draw":
        draw = next(a for a in actions if a["type"] == "draw")
        return {"type": "draw", "player": draw["player"]}
    raise AssertionError(f"no play chosen in phase {phase}")


def planned(players, options, events=None):
    """[(view before, event or None for the timer, view after)] for a whole game, through the engine."""
    state = GAME.new_state(players, options)
    steps = []
    i = 0
    while not GAME.finished(state):
        view = GAME.to_json(state)
        event = events[i] if events is not None else choose(view, GAME.actions(state))
        i += 1
        state = GAME.apply(state, event or {"type": "timer-expired"})
        steps.append((view, event, GAME.to_json(state)))
    assert events is None or i == len(events)
    return steps


# -- phones ---------------------------------------------------------------------------------------


def tap(page, name):
    page.get_by_role("button", name=name, exact=True).click()


def claim_words(view, hint):
    """The claim button's words: a card in two free links offers both, or either alone."""
    links = [fl["color"] for fl in view["free_links"] if hint["card"] in fl["cards"] and view["die"] in (None, fl["color"])]
    if len(links) == 1:
        return "Claim the free link"
    if len(hint["links"]) == len(links):
        return f"Claim all {len(links)} free links"
    return f"Claim the {COLOR[hint['links'][0]]} free link only"


def side_points(page, side):
    return page.locator(f'.qv-side[data-side="{side}"] .points')


def see_the_same(phones, view):
    """Both phones show what the engine says now: its words, the phase and every side's score."""
    from playwright.sync_api import expect

    for page in phones:
        expect(page.locator("#qv-last")).to_have_text(view["last"])
        for i, side in enumerate(view["sides"]):
            expect(side_points(page, i)).to_have_text(str(side["score"]))


def replayed_winners(page, server, table_id, players, options):
    """The winners of the service's own event log, replayed through the engine."""
    log = page.request.get(f"{server}/api/tables/{table_id}/events").json()
    assert not [e for e in log["entries"] if e["kind"] in ("undo", "redo")]
    state = GAME.new_state(players, options)
    for entry in log["entries"]:
        if entry["kind"] == "event":
            state = GAME.apply(state, entry["body"])
    view = GAME.to_json(state)
    assert view["finished"]
    return view


# -- the digital deal --------------------------------------------------------------------------------


@pytest.mark.long  # the scorekeeping game with every optional rule stays in the quick suite
def test_two_phones_play_a_digital_game_with_every_optional_rule(browser, server):
    from playwright.sync_api import expect

    steps = planned(DIGITAL_PLAYERS, DIGITAL)
    kinds = [event["type"] if event else "timer" for _, event, _ in steps]
    # The seed gives this game every optional rule's moment; a change to the engine that loses one fails here.
    for kind in ("block", "start-turn", "roll", "claim-free-link", "rotate", "timer", "draw"):
        assert kind in kinds, kind
    assert any(e and e.get("direction") == "double" for _, e, _ in steps)
    assert any(after["extra_round"] and any(s["pending_cards"] for s in after["sides"]) for _, _, after in steps)

    shots = Shots("digital")
    url = create_table(browser, server, DIGITAL_PLAYERS, shots, game="quivit", host=PHONE, **DIGITAL)
    table_id = url.rsplit("/", 1)[1]
    ann = join(browser, url, "Ann", shots)  # plays for the Suns (Ann and Cy)
    bob = join(browser, url, "Bob", shots)  # plays for the Moons (Bob and Di)
    phones = [ann, bob]
    see_the_same(phones, steps[0][0])
    for page in phones:
        expect(page.locator(".qv-card")).to_have_count(25)
        expect(page.locator("#qv-phase")).to_contain_text("Round 1 of 2 · Suns: Ann's turn. Color Blocking")
    shots(ann, "dealt-ann")

    rotations = 0
    pending_shot = False
    for n, (view, event, after) in enumerate(steps, start=1):
        if event is None:
            # The Timed turn: nobody rotates; the service's countdown ends it on both phones.
            for page in phones:
                expect(page.locator("#timer-status")).to_have_text("Timer running")
            shots(bob, f"{n:02d}-timer-running")
            for page in phones:
                # The next turn's countdown starts at once, so the words say that time ran out.
                expect(page.locator("#qv-last")).to_contain_text(
                    "Time! Bob's turn ends with nothing taken", timeout=(TIMER_SECONDS + 10) * 1000)
                # Every phone beeped for the turn that ran out, though the next countdown began at once.
                page.wait_for_function("window.companionTable.alarms >= 1", timeout=5000)
            see_the_same(phones, after)
            continue
        side = view["players"][event["player"]]["side"]
        page, other = phones[side], phones[1 - side]
        name = DIGITAL_PLAYERS[event["player"]]
        side_name = view["sides"][side]["name"]
        kind = event["type"]
        if kind == "block":
            page.locator(f'.qv-card[data-cell="{event["card"]}"]').click()
            if n == 1:
                shots(page, f"{n:02d}-block-selected")
            tap(page, f"{side_name}: block {event['card']} with the Color Block")
            expect(other.locator(f'.qv-card[data-cell="{event["card"]}"]')).to_have_attribute("data-blocked", "1")
        elif kind == "start-turn":
            tap(page, f"Start {name}'s turn: no more Color Blocks")
        elif kind == "roll":
            tap(page, f"{name}: roll the color die")
            for phone in phones:
                expect(phone.locator("#qv-die")).to_contain_text(f"Color die: {COLOR[after['die']]}.")
            if after["turn"] == 1:
                # The Timed turn started with the turn: both phones count down.
                for phone in phones:
                    expect(phone.locator("#timer-status")).to_have_text("Timer running")
            expect(page.locator("#qv-hints-top .qv-hint").first).to_have_attribute("data-points", str(after["hints"][0]["points"]))
        elif kind in ("rotate", "claim-free-link"):
            card = event["card"]
            direction = event.get("direction", "free-link")
            (hint,) = [h for h in view["hints"] if h["event"] == event]
            rotations += 1
            if rotations % 2:
                # Learning the game: tap the hint, which selects its card and marks what it takes.
                page.locator(f'.qv-hint[data-card="{card}"][data-direction="{direction}"]').first.click()
                for taken in hint["cards"]:
                    expect(page.locator(f'.qv-card[data-cell="{taken}"]')).to_have_class(re.compile("qv-would-take"))
            else:
                page.locator(f'.qv-card[data-cell="{card}"]').click()
            expect(page.locator(f'.qv-card[data-cell="{card}"]')).to_have_attribute("aria-pressed", "true")
            if kind == "claim-free-link" or direction == "double":
                shots(page, f"{n:02d}-{card}-selected")
            if kind == "rotate":
                tap(page, f"Rotate {card} {DIRECTION_WORDS[direction]}: {points(hint['points'])}")
            else:
                tap(page, f"{claim_words(view, hint)} with {card} (Double Rotate card): {points(hint['points'])}")
            turn = after["history"][-1]
            assert turn["points"] == hint["points"]
            if after["sides"][side]["pending_cards"]:
                # Drain the Deck: the extra round's cards wait until everyone has played.
                expect(other.locator(f'.qv-side[data-side="{side}"] .qv-pending')).to_contain_text(
                    f"This round: {points(turn['points'])}")
                if not pending_shot:
                    pending_shot = True
                    shots(other, f"{n:02d}-counted-when-everyone-has-played")
        elif kind == "draw":
            shots(page, f"{n:02d}-final-draw")
            tap(page, f"{side_name}: draw a card for the unused Double Rotate card")
        else:
            raise AssertionError(kind)
        see_the_same(phones, after)

    final = steps[-1][2]
    winner = " and ".join(final["sides"][i]["name"] for i in final["winning_sides"])
    for page in phones:
        expect(page.locator("#qv-winner .winner")).to_have_text(
            f"Winner: {winner}, with {points(final['sides'][final['winning_sides'][0]]['score'])}!")
        assert page.locator("#table-page").get_attribute("data-finished") == "1"
    assert winner == "Suns" and [s["score"] for s in final["sides"]] == [26, 22]  # seed 49's game
    shots(ann, "game-over-ann", full=True)
    shots(bob, "game-over-bob")
    replay = replayed_winners(ann, server, table_id, DIGITAL_PLAYERS, DIGITAL)
    assert replay["winners"] == [0, 2] and replay["winning_sides"] == [0] and replay == final
    assert ann.errors == [] and bob.errors == []
    ann.context.close()
    bob.context.close()


# -- scorekeeping for the real deck ------------------------------------------------------------------


def test_two_phones_keep_score_for_the_real_deck_with_every_optional_rule(browser, server):
    from playwright.sync_api import expect

    steps = planned(SCOREKEEPING_PLAYERS, SCOREKEEPING, SCOREKEEPING_EVENTS)
    shots = Shots("scorekeeping")
    url = create_table(browser, server, SCOREKEEPING_PLAYERS, game="quivit", host=PHONE, **SCOREKEEPING)
    table_id = url.rsplit("/", 1)[1]
    ann = join(browser, url, "Ann", shots)  # the Ann side
    bob = join(browser, url, "Bob", shots)  # the Bob & Cy team
    phones = [ann, bob]
    see_the_same(phones, steps[0][0])
    for page in phones:
        expect(page.locator(".qv-card")).to_have_count(0)  # the real cards are on the table
    for n, (view, event, after) in enumerate(steps, start=1):
        side = view["players"][event["player"]]["side"]
        page, other = phones[side], phones[1 - side]
        name = SCOREKEEPING_PLAYERS[event["player"]]
        side_name = view["sides"][side]["name"]
        kind = event["type"]
        if kind == "block":
            tap(page, f"{side_name}: play the Color Block on a card on the table")
        elif kind == "start-turn":
            tap(page, f"Start {name}'s turn: no more Color Blocks")
        elif kind == "roll" and "color" in event:
            tap(page, f"The die shows {COLOR[event['color']]}")
        elif kind == "roll":
            tap(page, f"{name}: let the companion roll the color die")
        elif kind == "take":
            for phone in phones:
                expect(phone.locator("#timer-status")).to_have_text("Timer running")
            expect(other.locator("#qv-die")).to_contain_text(f"Color die: {COLOR[view['die']]}.")
            for value in event["cards"]:
                tap(page, f"One more {value}-point card")
            if event.get("free_link"):
                page.get_by_label("A free link was claimed with the Double Rotate card").check()
            if event.get("double_rotate"):
                page.get_by_label("The Double Rotate card turned it 180°").check()
            total = f"{len(event['cards'])} cards, {points(sum(event['cards']))}"
            expect(page.locator(".qv-take-sum")).to_have_text(f"Taken: {total}")
            if event.get("free_link") or event.get("double_rotate"):
                shots(page, f"{n:02d}-take")
            tap(page, f"Record that {name} took {total}")
            if after["sides"][side]["pending_cards"]:
                expect(other.locator(f'.qv-side[data-side="{side}"] .qv-pending')).to_contain_text(
                    f"This round: {points(sum(event['cards']))} in {len(event['cards'])} cards")
        elif kind == "draw":
            shots(page, f"{n:02d}-final-draw")
            tap(page, f"{side_name} drew a card worth {event['value']}")
        else:
            raise AssertionError(kind)
        see_the_same(phones, after)

    final = steps[-1][2]
    for page in phones:
        expect(page.locator("#qv-winner .winner")).to_have_text("Winner: Ann, with 14 points!")
        expect(side_points(page, 1)).to_have_text("10")
        expect(page.locator("#qv-winner")).to_contain_text("draw deck holds 111 cards")
    shots(ann, "game-over-ann", full=True)
    shots(bob, "game-over-bob")
    replay = replayed_winners(ann, server, table_id, SCOREKEEPING_PLAYERS, SCOREKEEPING)
    assert replay["winners"] == [0] and replay == final
    assert ann.errors == [] and bob.errors == []
    ann.context.close()
    bob.context.close()


# -- a card in two free links ---------------------------------------------------------------------------


def test_a_card_in_two_free_links_offers_both_or_either_alone(browser, server):
    """Seed 2951 deals c3 into a red and a yellow free link; the red one brings a -1 card, so the
    yellow one alone is worth more (6 points) than both (4): "the player may score all Free Links"."""
    from playwright.sync_api import expect

    options = {"seed": 2951, "double_rotation": True, "hints": True}
    state = GAME.new_state(["Ann", "Bob"], options)
    claims = {tuple(h["links"]): h["points"] for h in GAME.hints(state) if h["card"] == "c3" and h["direction"] == "free-link"}
    assert claims == {("R", "Y"): 4, ("Y",): 6, ("R",): 1}
    created = call_api(server, "/api/tables", {"game": "quivit", "players": ["Ann", "Bob"], "options": {**options, "pin": PIN}})
    shots = Shots("two-free-links")
    ann = join(browser, f"{server}/tables/{created['id']}", "Ann", shots)
    ann.locator('.qv-card[data-cell="c3"]').click()
    for words, points_ in [("Claim all 2 free links", 4), ("Claim the yellow free link only", 6),
                           ("Claim the red free link only", 1)]:
        expect(ann.get_by_role("button", name=f"{words} with c3 (Double Rotate card): {points(points_)}", exact=True)).to_be_visible()
    expect(ann.locator("#qv-hints-all li", has_text="c3, yellow free link: 6 points")).to_have_count(1)
    shots(ann, "c3-selected")
    tap(ann, "Claim the yellow free link only with c3 (Double Rotate card): 6 points")
    expect(ann.locator("#qv-last")).to_have_text(GAME.to_json(GAME.apply(state, {
        "type": "claim-free-link", "player": 0, "card": "c3", "colors": ["Y"]}))["last"])
    expect(side_points(ann, 0)).to_have_text("6")
    assert ann.errors == []
    ann.context.close()
