"""The live stream: the whole table per version, heartbeats, Last-Event-ID resume, the cap on streams."""
from __future__ import annotations

import json
import threading

import pytest

PIN = "2468"


class Reader:
    """Reads server-sent events from a streamed test-client response."""

    def __init__(self, response):
        self.response = response
        self.chunks = response.iter_encoded()
        self.buffer = ""

    def next(self) -> dict:
        while "\n\n" not in self.buffer:
            self.buffer += next(self.chunks).decode()
        block, self.buffer = self.buffer.split("\n\n", 1)
        message = {}
        for line in block.split("\n"):
            key, _, value = line.partition(": ")
            message[key] = value
        if "data" in message:
            message["data"] = json.loads(message["data"])
        return message

    def close(self):
        self.response.close()


def open_stream(client, table_id, **headers):
    response = client.get(f"/api/tables/{table_id}/stream", headers=headers, buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"].startswith("no-cache")
    return Reader(response)


def test_first_the_table_then_every_change(client, api):
    table = api.create()
    reader = open_stream(client, table["id"])
    assert reader.next() == {"retry": "2000"}
    first = reader.next()
    assert first["event"] == "table" and first["id"] == "0"
    assert first["data"]["id"] == table["id"] and first["data"]["version"] == 0
    api.act(table["id"], type="start-round")
    second = reader.next()
    while second["event"] != "table":
        second = reader.next()
    assert second["id"] == "1" and second["data"]["state"]["phase"] == "playing"
    # The stream carries exactly what GET answers (apart from the clock reading).
    got = api.get(table["id"])
    assert {k: v for k, v in second["data"].items() if k != "server_time_ms"} == \
        {k: v for k, v in got.items() if k != "server_time_ms"}
    reader.close()


def test_heartbeats_carry_the_server_clock(client, api, clock):
    table = api.create()
    reader = open_stream(client, table["id"])
    reader.next(), reader.next()
    beat = reader.next()
    assert beat["event"] == "heartbeat"
    assert beat["data"] == {"server_time_ms": int(clock.time() * 1000), "version": 0}
    reader.close()


def test_last_event_id_resumes(client, api):
    table = api.create()
    api.act(table["id"], type="start-round")
    api.act(table["id"], type="trade", player=0)
    # Up to date: nothing is resent, only heartbeats until something happens.
    reader = open_stream(client, table["id"], **{"Last-Event-ID": "2"})
    reader.next()
    assert reader.next()["event"] == "heartbeat"
    reader.close()
    # Missed something: the current table at once.
    reader = open_stream(client, table["id"], **{"Last-Event-ID": "1"})
    reader.next()
    message = reader.next()
    assert message["event"] == "table" and message["id"] == "2"
    reader.close()
    # The page's own reconnect passes it in the query string, where junk is a 400; in the header it is ignored.
    for junk in ("soon", "1.5", "-1"):
        response = client.get(f"/api/tables/{table['id']}/stream?last_event_id={junk}")
        assert response.status_code == 400 and response.get_json()["error"].startswith("query last_event_id: ")
    response = client.get(f"/api/tables/{table['id']}/stream?last_event_id=2", buffered=False)
    reader = Reader(response)
    reader.next()
    assert reader.next()["event"] == "heartbeat"
    reader.close()
    reader = open_stream(client, table["id"], **{"Last-Event-ID": "soon"})
    reader.next()
    assert reader.next()["event"] == "table"
    reader.close()


def test_unknown_table(client):
    response = client.get("/api/tables/nope/stream")
    assert response.status_code == 404 and response.get_json()["error"] == "no table 'nope'"


def test_streams_are_capped_and_slots_come_back(service, api, client):
    from web import create_app

    app = create_app({"TABLE_SERVICE": service, "START_TICKER": False, "MAX_STREAMS": 1, "HEARTBEAT_SECONDS": 0.05})
    capped = app.test_client()
    table = api.create()
    reader = open_stream(capped, table["id"])
    reader.next()
    refused = capped.get(f"/api/tables/{table['id']}/stream")
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert "too many" in refused.get_json()["error"]
    reader.close()
    # A stream closed before it ever ran gives its slot back too.
    unread = capped.get(f"/api/tables/{table['id']}/stream", buffered=False)
    unread.close()
    again = open_stream(capped, table["id"])
    again.close()


def test_a_closing_service_ends_the_streams(client, api, service):
    table = api.create()
    reader = open_stream(client, table["id"])
    reader.next(), reader.next()
    done = threading.Event()

    def drain():
        try:
            while True:
                reader.next()
        except StopIteration:
            done.set()

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    service.stop_streams()
    assert done.wait(5)


@pytest.mark.parametrize("phones", [3])
def test_every_phone_gets_every_version(client, api, phones):
    table = api.create()
    readers = [open_stream(client, table["id"]) for _ in range(phones)]
    for r in readers:
        r.next(), r.next()
    api.act(table["id"], type="start-round")
    for r in readers:
        message = r.next()
        while message["event"] != "table":
            message = r.next()
        assert message["data"]["version"] == 1
        r.close()
