"""Fixtures for the web front: an app around a service with a manual clock, its client,
and helpers to make tables and act on them through the API."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from companion.games import available_games, get_game
from companion.store import EventStore
from companion.tables import TableService
from companion.timer import ManualClock, PageTimerOutput
from web import create_app

from .browser import CHROMIUM, _need_browser, serve_process

_spec = importlib.util.spec_from_file_location(
    "counting_game", Path(__file__).resolve().parents[1] / "service" / "counting_game.py")
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
COUNTING = _module.GAME

PIN = "2468"


def lookup(game_id):
    return COUNTING if game_id == "counting" else get_game(game_id)


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def service(tmp_path, clock):
    service = TableService(EventStore(tmp_path / "companion.db"), clock=clock, outputs=[PageTimerOutput()],
                           game_lookup=lookup, game_ids=[*available_games(), "counting"])
    yield service
    service.close()


@pytest.fixture
def app(service):
    return create_app({"TABLE_SERVICE": service, "START_TICKER": False, "TESTING": True,
                       "HEARTBEAT_SECONDS": 0.05, "PUBLIC_URL": "http://192.168.1.20:8080"})


@pytest.fixture
def client(app):
    return app.test_client()


class Api:
    """The JSON API as a phone uses it."""

    def __init__(self, client):
        self.client = client

    def create(self, game="pivit-tiles", players=("Ann", "Bob"), pin=PIN, **options):
        response = self.client.post("/api/tables", json={"game": game, "players": list(players),
                                                         "options": {**options, "pin": pin}})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def act(self, table_id, expect=200, pin=PIN, **event):
        response = self.client.post(f"/api/tables/{table_id}/actions", json=event, headers={"X-Table-Pin": pin})
        assert response.status_code == expect, response.get_json()
        return response.get_json()

    def post(self, path, expect=200, pin=PIN, **body):
        response = self.client.post(path, json=body, headers={"X-Table-Pin": pin})
        assert response.status_code == expect, response.get_json()
        return response.get_json()

    def get(self, table_id):
        return self.client.get(f"/api/tables/{table_id}").get_json()


@pytest.fixture
def api(client):
    return Api(client)


# -- real server and real browser (see browser.py) ---------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real `companion serve` on a free loopback port; yields its base URL."""
    _need_browser()
    with serve_process(tmp_path_factory.mktemp("serve")) as url:
        yield url


@pytest.fixture(params=[360, pytest.param(390, marks=pytest.mark.long)], ids=["360px", "390px"])
def width(request):
    """The phone's width in CSS px: every browser test of the Pivit tile page runs on both screens.

    The narrow one is in the quick suite; the 390 px run is `long` (.ci/run's second pass), which
    keeps the README's test command within its 10 minutes on 2 cores.
    """
    return request.param


@pytest.fixture(scope="session")
def browser():
    """Chromium through Playwright, one for the whole run (or a skip; a failure with COMPANION_REQUIRE_BROWSER=1)."""
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--autoplay-policy=no-user-gesture-required"])
        yield browser
        browser.close()
