"""Tables ship to a real club server process on PostgreSQL, through faults: the club killed with kill -9
mid-ingest, a table offline for a whole game, the club's database restarted, a revoked table."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import create_engine, select

from companion.club import schema
from companion.club.store import database_url
from companion.outbox import Outbox
from companion.timer import ManualClock

from .clubproc import club_process, free_port
from .games import finish_pivit, table_service
from .pgcluster import wait_for


@pytest.fixture
def pg_url(pg_cluster, request):
    return pg_cluster.create_database("outbox_" + request.node.name.split("[")[0][-40:].replace("-", "_"))


@pytest.fixture
def clock():
    return ManualClock(wall=1_790_000_000.0)


@pytest.fixture
def pi(tmp_path, clock):
    service = table_service(tmp_path / "pi" / "companion.db", clock)
    yield service
    service.close()


def club_log(url: str) -> dict[str, list[tuple[int, dict]]]:
    """Every table's entries as the club database holds them, by the table's own id."""
    engine = create_engine(database_url(url))
    try:
        with engine.connect() as db:
            rows = db.execute(select(schema.tables.c.table_id, schema.entries.c.seq, schema.entries.c.body)
                              .join(schema.entries, schema.entries.c.table_ref == schema.tables.c.id)
                              .order_by(schema.tables.c.table_id, schema.entries.c.seq)).all()
    finally:
        engine.dispose()
    out: dict[str, list] = {}
    for row in rows:
        out.setdefault(row.table_id, []).append((row.seq, json.loads(row.body)))
    return out


def table_log(pi) -> dict[str, list[tuple[int, dict]]]:
    return {t.id: [(e.seq, e.body) for e in pi.store.entries(t.id)] for t in pi.tables()}


def play_games(pi, clock, count: int) -> None:
    for i in range(count):
        table, _ = pi.create("pivit-tiles", [f"Ann{i % 3}", f"Bob{i % 5}"])
        finish_pivit(pi, clock, table.id, winner=i % 2)


def outbox_for(pi, club, tmp_path, **kw) -> Outbox:
    return Outbox(pi, club.url, club.code, tmp_path / "pi", name="Pi under test", clock=pi.clock.time, **kw)


def test_the_club_killed_mid_ingest_loses_nothing_a_table_was_told_was_stored(pg_url, pi, clock, tmp_path):
    play_games(pi, clock, 40)
    port = free_port()
    with club_process(pg_url, port) as club:
        outbox = outbox_for(pi, club, tmp_path, batch_entries=20)
        outbox.start()
        wait_for(lambda: outbox.shipped >= 200, timeout=60)
        club.kill9()
        told = dict(outbox._last_cursors)  # what the table was told was stored, at the kill or after
    stored = {table_id: entries[-1][0] for table_id, entries in club_log(pg_url).items()}
    assert all(stored.get(t, 0) >= seq for t, seq in told.items()), (told, stored)
    with club_process(pg_url, port):
        wait_for(lambda: outbox.status()["behind"] == 0 and outbox.state == "ok", timeout=90)
        outbox.stop()
    assert club_log(pg_url) == table_log(pi)  # every entry once, in order, bodies unchanged


def test_a_table_offline_for_a_whole_game_catches_up_in_order(pg_url, pi, clock, tmp_path):
    port = free_port()
    with club_process(pg_url, port) as club:
        outbox = outbox_for(pi, club, tmp_path)
        outbox.start()
        wait_for(lambda: outbox.state == "ok", timeout=30)
    # The club is gone (the Wi-Fi dropped): the table plays a whole game anyway.
    play_games(pi, clock, 1)
    wait_for(lambda: outbox.state == "offline", timeout=30)
    assert outbox.status()["behind"] == pi.tables()[0].version > 10
    with club_process(pg_url, port) as club:
        wait_for(lambda: outbox.status()["behind"] == 0 and outbox.state == "ok", timeout=60)
        outbox.stop()
        import urllib.request

        # The results of the night the game began in: the club dates it by the table's clock (its
        # moves' times, shifted onto the club's clock), and "tonight" changes at 6:00, so a game
        # that began at 5:50 belongs to the evening before, while /api/results alone gives the new
        # night's (this test run between 6:00 and the game's length after it found none).
        engine = create_engine(database_url(pg_url))
        try:
            with engine.connect() as db:
                night = db.execute(select(schema.tables.c.night)).scalar_one()
        finally:
            engine.dispose()
        results = json.load(urllib.request.urlopen(club.url + "/api/results?night=" + night))["results"]
        assert len(results) == 1 and [s["rank"] for s in results[0]["seats"]] == [1, 2]
        assert results[0]["night"] == night
    assert club_log(pg_url) == table_log(pi)


def test_the_club_database_restarted_while_tables_keep_playing(pg_cluster, pg_url, pi, clock, tmp_path):
    with club_process(pg_url) as club:
        outbox = outbox_for(pi, club, tmp_path)
        outbox.start()
        play_games(pi, clock, 1)
        wait_for(lambda: outbox.status()["behind"] == 0, timeout=30)
        pg_cluster.stop()
        try:
            play_games(pi, clock, 2)  # the table never waits for the club
            wait_for(lambda: outbox.state == "offline", timeout=30)
            assert "503" in outbox.detail or "reached" in outbox.detail
        finally:
            pg_cluster.restart()
        wait_for(lambda: outbox.status()["behind"] == 0 and outbox.state == "ok", timeout=90)
        outbox.stop()
    assert club_log(pg_url) == table_log(pi)


def test_a_revoked_table_is_refused_and_keeps_playing(pg_url, pi, clock, tmp_path):
    import urllib.request

    with club_process(pg_url) as club:
        outbox = outbox_for(pi, club, tmp_path)
        outbox.start()
        play_games(pi, clock, 1)
        wait_for(lambda: outbox.status()["behind"] == 0, timeout=30)
        key = json.loads((tmp_path / "pi" / "club.json").read_text())
        assert (tmp_path / "pi" / "club.json").stat().st_mode & 0o777 == 0o600
        request = urllib.request.Request(f"{club.url}/api/devices/{key['device_id']}/revoke", method="POST",
                                         data=b'{"pin": "2468"}', headers={"Content-Type": "application/json"})
        assert json.load(urllib.request.urlopen(request)) == {"revoked": key["device_id"]}
        play_games(pi, clock, 1)
        wait_for(lambda: outbox.state == "refused", timeout=30)
        assert "revoked" in outbox.detail and outbox.status()["behind"] > 0
        outbox.stop()
        assert "Traceback" not in club.output()
