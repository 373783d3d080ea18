"""Fixtures for the table service: a manual clock, a store in a temporary directory,
a service that knows the real games plus the tiny counting game, and fake timer outputs."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from companion.devices import TimerSnapshot
from companion.games import get_game
from companion.store import EventStore
from companion.tables import TableService
from companion.timer import ManualClock

_spec = importlib.util.spec_from_file_location("counting_game", Path(__file__).with_name("counting_game.py"))
counting_game = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(counting_game)
COUNTING = counting_game.GAME


def lookup(game_id: str):
    return COUNTING if game_id == "counting" else get_game(game_id)


class RecordingOutput:
    """A timer output that keeps what it was told, like a display would show it."""

    name = "recording"

    def __init__(self):
        self.snapshots: list[TimerSnapshot] = []
        self.expiries = 0
        self.chirps: list[str] = []
        self.closed = False

    def timer_changed(self, snapshot):
        self.snapshots.append(snapshot)

    def timer_expired(self):
        self.expiries += 1

    def chirp(self, kind):
        self.chirps.append(kind)

    def status(self):
        return {"ok": True, "detail": "recording"}

    def close(self):
        self.closed = True


class BrokenOutput(RecordingOutput):
    name = "broken"

    def timer_changed(self, snapshot):
        raise OSError("display unplugged")

    def timer_expired(self):
        raise OSError("buzzer unplugged")


@pytest.fixture
def broken_output():
    return BrokenOutput()


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "companion.db"


@pytest.fixture
def output():
    return RecordingOutput()


@pytest.fixture
def make_service(db_path, clock, output):
    """make_service() opens (or re-opens, as after a restart) the service on the same database."""
    made = []

    def make(**kwargs):
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("outputs", [output])
        kwargs.setdefault("game_lookup", lookup)
        service = TableService(EventStore(db_path), **kwargs)
        made.append(service)
        return service

    yield make
    for service in made:
        try:
            service.close()
        except Exception:
            pass


@pytest.fixture
def service(make_service):
    return make_service()
