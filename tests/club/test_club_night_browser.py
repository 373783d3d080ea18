"""Done when: two Pis (two real `companion serve` processes) and one club server on a real PostgreSQL play
a club night end to end, seen in a real browser at 360 px: join, play at both tables, one table offline
and back, standings, ratings and next-round seatings on the club page."""
from __future__ import annotations

import json
import urllib.request

import pytest

from ..web.browser import PIN, Shots, _need_browser, no_sideways_scroll, phone, serve_process
from .clubproc import club_process
from .conftest import CLUB_PIN
from .pgcluster import wait_for
from .proxy import Proxy

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def call(url, method="GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def new_table(pi, players):
    body = {"game": "pivit-tiles", "players": players, "options": {"pin": PIN, "target": 4, "timer_seconds": 1}}
    return call(pi + "/api/tables", "POST", body)["id"]


def act(pi, table, **event):
    return call(f"{pi}/api/tables/{table}/actions", "POST", event)


def win_round(pi, table, winner):
    """Start the round, the winner says done and is verified; the 1-second countdown ends the round."""
    act(pi, table, type="start-round")
    act(pi, table, type="done", player=winner)
    act(pi, table, type="verify", player=winner, valid=True)
    wait_for(lambda: call(f"{pi}/api/tables/{table}")["finished"], timeout=15)


def club_state(pi):
    return call(pi + "/api/health")["club"]


@pytest.fixture
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"], headless=True)
        yield chromium
        chromium.close()


def test_a_club_night_with_two_pis_one_offline_for_a_while(browser, pg_cluster, tmp_path):
    from playwright.sync_api import expect

    shots = Shots("club-night")
    url = pg_cluster.create_database("club_night")
    with club_process(url, pin=CLUB_PIN) as club:
        proxy = Proxy(club.port)  # the second Pi's Wi-Fi
        try:
            with serve_process(tmp_path / "pi1", "--club", club.url, "--club-code", club.code) as pi1, \
                    serve_process(tmp_path / "pi2", "--club", proxy.url, "--club-code", club.code) as pi2:
                t1 = new_table(pi1, ["Ann", "Bob"])
                t2 = new_table(pi2, ["Cy", "Dee"])
                for pi in (pi1, pi2):
                    wait_for(lambda pi=pi: club_state(pi)["state"] == "ok" and club_state(pi)["behind"] == 0, 30)

                page = browser.new_context(**phone(360)).new_page()
                errors = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(club.url + "/")
                expect(page.locator("[data-live-state]")).to_have_text("live")
                expect(page.locator(".club-table")).to_have_count(2)
                expect(page.locator(".club-table", has_text="Ann")).to_contain_text("Bob")
                expect(page.locator(".club-table", has_text="Cy")).to_contain_text("Playing")
                # Live: a tap at table 1 shows on the club page by itself.
                act(pi1, t1, type="start-round")
                expect(page.locator(".club-table", has_text="Ann")).to_contain_text("round 1")
                no_sideways_scroll(page)
                shots(page, "live")

                # Table 2's Wi-Fi drops; it plays its whole game anyway.
                proxy.cut()
                win_round(pi2, t2, winner=1)
                wait_for(lambda: club_state(pi2)["state"] == "offline" and club_state(pi2)["behind"] > 0, 30)
                act(pi1, t1, type="done", player=0)
                act(pi1, t1, type="verify", player=0, valid=True)
                wait_for(lambda: call(f"{pi1}/api/tables/{t1}")["finished"], 15)
                results = page.locator("[data-results] li")
                expect(results).to_have_count(1)
                expect(results.first).to_contain_text("1. Ann")
                # Back online: table 2 catches up, in order, and its result appears.
                proxy.restore()
                wait_for(lambda: club_state(pi2)["state"] == "ok" and club_state(pi2)["behind"] == 0, 60)
                expect(results).to_have_count(2)
                expect(page.locator("[data-results]")).to_contain_text("1. Dee")
                shots(page, "results")

                # Standings and ratings with their uncertainty.
                page.get_by_role("link", name="Standings").click()
                rows = page.locator("[data-standings] tbody tr")
                expect(rows).to_have_count(4)
                expect(rows.first.locator("[data-rating]")).to_contain_text("±")
                assert {rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)} == {"Ann", "Dee"}
                no_sideways_scroll(page)
                shots(page, "standings")

                # Next round's seating: proposed, saved with the club PIN.
                page.get_by_role("link", name="Seatings").click()
                page.get_by_role("button", name="Propose tables").click()
                seated = page.locator("[data-seating-table]")
                expect(seated).to_have_count(1)
                for name in ("Ann", "Bob", "Cy", "Dee"):
                    expect(seated.first).to_contain_text(name)
                page.locator("[data-pin]").fill(CLUB_PIN)
                page.get_by_role("button", name="Save this seating").click()
                expect(page.locator("[data-status]")).to_have_text("Saved: round 1.")
                no_sideways_scroll(page)
                shots(page, "seating")

                # A player's history across the night.
                page.get_by_role("link", name="Players").click()
                page.get_by_role("link", name="Dee").click()
                expect(page.locator("[data-history] li")).to_have_count(1)
                expect(page.locator("[data-history]")).to_contain_text("1st of 2")
                shots(page, "player")

                # "I am ...": a new table at Pi 1 offers the club's names, Pi 2's players too.
                home = browser.new_context(**phone(360)).new_page()
                home.goto(pi1 + "/")
                expect(home.locator("#club-players option[value='Dee']")).to_have_count(1)
                assert errors == []
        finally:
            proxy.close()
        assert "Traceback" not in club.output()
