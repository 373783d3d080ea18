"""The live stream every phone keeps open: /api/tables/<id>/stream (text/event-stream).

Each message is the whole table, exactly what GET /api/tables/<id> answers,
as ``event: table`` with the table's version as its ``id``. A phone that
reconnects sends ``Last-Event-ID`` (browsers do it by themselves) and gets
the current table at once if it missed anything, or waits if it did not.
When nothing happens a ``heartbeat`` event carries the server's clock, which
keeps proxies and phones from dropping the connection and lets the server
notice phones that went away.

An open stream holds one server thread, so their number is capped
(MAX_STREAMS); past it the answer is 503 with Retry-After and the page
falls back to reconnecting later.
"""
from __future__ import annotations

import json
import threading

from flask import Blueprint, Response, current_app, jsonify, request

from web import get_service

bp = Blueprint("stream", __name__)


class StreamSlots:
    """How many streams are open, against the cap."""

    def __init__(self, limit: int):
        self.limit = limit
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.open >= self.limit:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1


class _Released:
    """The stream's body: gives its slot back once, whether it ran to the end, failed or was never started.

    (A generator closed before its first step never runs its `finally`.)
    """

    def __init__(self, generator, slots: StreamSlots):
        self._generator = generator
        self._slots = slots
        self._done = False
        self._lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._generator)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        self._generator.close()
        self._slots.give_back()


def _slots() -> StreamSlots:
    slots = current_app.extensions.get("stream_slots")
    if slots is None:
        slots = current_app.extensions.setdefault("stream_slots", StreamSlots(current_app.config["MAX_STREAMS"]))
    return slots


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


@bp.get("/api/tables/<table_id>/stream")
def stream(table_id: str):
    table = get_service().get(table_id)
    clock = table.clock
    heartbeat = float(current_app.config["HEARTBEAT_SECONDS"])
    slots = _slots()
    if not slots.take():
        response = jsonify({"error": "too many live phones on this companion; retrying shortly"})
        response.status_code = 503
        response.headers["Retry-After"] = "5"
        return response
    last = _last_event_id()

    def events():
        # The browser's EventSource waits this long before reconnecting.
        yield "retry: 2000\n\n"
        seen = last if last is not None else -1
        while not table.closed:
            version, body = table.published()
            if version != seen:
                seen = version
                yield f"id: {version}\nevent: table\ndata: {body}\n\n"
            elif not table.wait_for_change(seen, heartbeat):
                beat = json.dumps({"server_time_ms": int(clock.time() * 1000), "version": seen})
                yield f"event: heartbeat\ndata: {beat}\n\n"

    response = Response(_Released(events(), slots), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a reverse proxy must not hold messages back
    return response
