"""The live stream every phone keeps open: /api/tables/<id>/stream (text/event-stream).

Each message is the whole table, exactly what GET /api/tables/<id> answers,
as ``event: table`` with the table's version as its ``id``. A phone that
reconnects sends ``Last-Event-ID`` (browsers do it by themselves) and gets
the current table at once if it missed anything, or waits if it did not.
When nothing happens a ``heartbeat`` event carries the server's clock, which
keeps proxies and phones from dropping the connection and lets the server
notice phones that went away: more often while the streams are nearly all
taken, so that a vanished phone's place is found and freed sooner.

Streams are capped in all (MAX_STREAMS, then 503) and per client address
(MAX_STREAMS_PER_CLIENT, then 429), so one client cannot take every place;
both answers carry Retry-After and the page reconnects by itself.

`LiveStream` is one phone's stream. Under any WSGI server it is the
response body, iterated by a thread that waits for the table to change.
`companion serve`'s own server (web.server) finds it in the WSGI environ
(``companion.live_stream``) and drives it from its event loop instead, with
no thread per phone; the messages are the same either way.
"""
from __future__ import annotations

import json
import threading

from typing import Annotated

from flask import Blueprint, Response, current_app, jsonify, request
from pydantic import Field

from web import get_service
from web.api import TABLE_ERRORS, Table
from web.contract import Answer, Body, Error, Header, Reply, operation

bp = Blueprint("stream", __name__)


class StreamQuery(Body):
    model_config = {"strict": False}  # query values are text

    last_event_id: Annotated[int, Field(ge=0, le=2**53, description=(
        "The version the phone has seen (as Last-Event-ID, for clients that cannot set headers)."))] | None = None


class Heartbeat(Answer):
    server_time_ms: int
    version: int = Field(description="The version this stream has sent last (-1: none yet).")

ENVIRON_KEY = "companion.live_stream"
# While this share of the places is taken, heartbeats come BUSY_HEARTBEAT_SECONDS apart at most.
BUSY_SHARE = 0.75
BUSY_HEARTBEAT_SECONDS = 3.0
RETRY_AFTER_SECONDS = 5


class StreamSlots:
    """How many streams are open, in all and per client address, against the caps."""

    def __init__(self, limit: int, per_client: int):
        self.limit = limit
        self.per_client = per_client
        self.open = 0
        self._by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> tuple[int, str] | None:
        """None if a place was taken for `client`, else the refusal (status, message)."""
        with self._lock:
            if self._by_client.get(client, 0) >= self.per_client:
                return 429, (f"too many live streams from your address ({self.per_client} at most): "
                             "close a table page on another tab or device")
            if self.open >= self.limit:
                return 503, "too many live phones on this companion; retrying shortly"
            self.open += 1
            self._by_client[client] = self._by_client.get(client, 0) + 1
            return None

    def give_back(self, client: str) -> None:
        with self._lock:
            self.open -= 1
            left = self._by_client.get(client, 0) - 1
            if left > 0:
                self._by_client[client] = left
            else:
                self._by_client.pop(client, None)

    @property
    def busy(self) -> bool:
        return self.open >= BUSY_SHARE * self.limit


class LiveStream:
    """One phone's stream of one table: what it has seen, its next message, its place.

    Thread-safe to close from anywhere; the place is given back exactly once,
    whether the stream ran to its end, failed, or never started.
    """

    def __init__(self, table, last_event_id: int | None, slots: StreamSlots, client: str, heartbeat: float):
        self.table = table
        self.seen = last_event_id if last_event_id is not None else -1
        self.slots = slots
        self.client = client
        self.heartbeat_seconds = heartbeat
        self._closed = False
        self._lock = threading.Lock()

    # -- the messages ---------------------------------------------------------

    @staticmethod
    def opening() -> str:
        # The browser's EventSource waits this long before reconnecting.
        return "retry: 2000\n\n"

    def update(self) -> str | None:
        """The table as a message if it changed since this phone last saw it, else None."""
        version, body = self.table.published()
        if version == self.seen:
            return None
        self.seen = version
        return f"id: {version}\nevent: table\ndata: {body}\n\n"

    def heartbeat(self) -> str:
        beat = json.dumps({"server_time_ms": int(self.table.clock.time() * 1000), "version": self.seen})
        return f"event: heartbeat\ndata: {beat}\n\n"

    def interval(self) -> float:
        """Seconds of quiet before a heartbeat: shorter while places are scarce."""
        if self.slots.busy:
            return min(self.heartbeat_seconds, BUSY_HEARTBEAT_SECONDS)
        return self.heartbeat_seconds

    @property
    def ended(self) -> bool:
        return self._closed or self.table.closed

    # -- as a WSGI body (a thread per stream) ---------------------------------

    def __iter__(self):
        return self._messages()

    def _messages(self):
        yield self.opening()
        while not self.ended:
            message = self.update()
            if message is not None:
                yield message
            elif not self.table.wait_for_change(self.seen, self.interval()):
                yield self.heartbeat()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.slots.give_back(self.client)


def _slots() -> StreamSlots:
    slots = current_app.extensions.get("stream_slots")
    if slots is None:
        slots = current_app.extensions.setdefault("stream_slots", StreamSlots(
            current_app.config["MAX_STREAMS"], current_app.config["MAX_STREAMS_PER_CLIENT"]))
    return slots


def _last_event_id(query: StreamQuery) -> int | None:
    """The version the phone saw last: Last-Event-ID (browsers send it when they reconnect), else the query's."""
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return query.last_event_id
    # Browsers send back the id they were given; anything else is not ours: the table comes at once.
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 16 else None


@operation(bp, "/api/tables/<table_id>/stream", summary="Live updates as text/event-stream", query=StreamQuery,
           headers=(Header("Last-Event-ID", "The id of the last event seen (browsers send it when they reconnect); "
                                            "one that is not a whole number is ignored.", {"type": "string"}),),
           replies={200: Reply("The stream: `retry`, then a `table` event at once if the table changed since "
                               "Last-Event-ID, and one for each change; `heartbeat` events while nothing happens.",
                               media="text/event-stream", events={"table": Table, "heartbeat": Heartbeat}),
                    **TABLE_ERRORS,
                    429: Reply("Too many live streams from this address (see Retry-After).", Error,
                               headers={"Retry-After": "Seconds to wait."}),
                    503: Reply("Too many live phones on this companion (see Retry-After).", Error,
                               headers={"Retry-After": "Seconds to wait."})})
def stream(table_id: str, query: StreamQuery):
    """Each `table` event carries the whole table (as GET /api/tables/{id}) with its version as the event id;
    `heartbeat` events carry the server clock. Reconnect with Last-Event-ID (or ?last_event_id=) to get the
    table at once if it changed."""
    table = get_service().get(table_id)
    seen = _last_event_id(query)
    slots = _slots()
    client = request.remote_addr or "?"
    refused = slots.take(client)
    if refused is not None:
        response = jsonify({"error": refused[1]})
        response.status_code = refused[0]
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    live = LiveStream(table, seen, slots, client, float(current_app.config["HEARTBEAT_SECONDS"]))
    request.environ[ENVIRON_KEY] = live
    response = Response(live, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a reverse proxy must not hold messages back
    return response
