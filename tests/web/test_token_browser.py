"""A real phone keeps playing while someone on the Wi-Fi guesses its table's PIN: the page keeps
the table token it got when it unlocked and sends it with every tap (Chromium, a real server)."""
from __future__ import annotations

import http.client
import re

import pytest

from .browser import PIN, Shots, card, create_table, join, tap

pytestmark = pytest.mark.browser


def guess(server: str, table_id: str, source: str, pin: str) -> int:
    host, port = re.match(r"http://([\d.]+):(\d+)", server).groups()
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        conn.request("POST", f"/api/tables/{table_id}/pin", body="{}",
                     headers={"Content-Type": "application/json", "X-Table-Pin": pin})
        return conn.getresponse().status
    finally:
        conn.close()


def test_an_unlocked_phone_plays_on_while_the_pin_is_guessed_from_many_addresses(browser, server, width):
    from playwright.sync_api import expect

    shots = Shots(f"token-under-guessing-{width}")
    url = create_table(browser, server, ["Ann", "Bob"], shots)
    table_id = url.rstrip("/").rsplit("/", 1)[1]
    ann = join(browser, url, "Ann", shots, width)
    assert ann.evaluate(f"localStorage.getItem('companion:token:{table_id}')")
    # Someone guesses from 60 addresses: the service stops looking at PINs for this table.
    answers = [guess(server, table_id, f"127.0.3.{n + 1}", f"{n:04d}") for n in range(60)]
    assert answers.count(403) == 30 and answers.count(429) == 30
    assert guess(server, table_id, "127.0.4.1", PIN) == 429  # even the right PIN waits now ...
    tap(ann, "Go: start round 1")  # ... but Ann's phone, unlocked before, taps on
    expect(ann.locator("#pv-phase")).to_contain_text("Round 1: build your grid!")
    tap(ann, "Ann: trade a tile")
    expect(card(ann, 0).locator(".tokens")).to_contain_text("Trade tokens: 1 of 2")
    expect(ann.locator("#action-error")).to_have_text("")
    shots(ann, "still-playing")
    assert ann.errors == []
    ann.context.close()
