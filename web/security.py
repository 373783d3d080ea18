"""What keeps a table safe on a shared network.

- Anyone can watch; changing a table needs its PIN, sent by the page in the
  ``X-Table-Pin`` header (or ``"pin"`` in the JSON body). It is never a
  cookie, so a page on another site cannot act with a player's rights (CSRF).
- On top of that, unsafe requests from a browser must come from this origin
  (``Origin`` / ``Sec-Fetch-Site``), and API bodies must be JSON, which a
  cross-site HTML form cannot send.
- Wrong PINs are counted per client and table; too many in a row lock that
  client out for a while (a 4-digit PIN is otherwise guessed in seconds).
- Request bodies are capped (MAX_CONTENT_LENGTH), pages get a strict
  Content-Security-Policy (no inline script, nothing from other hosts), and
  names are escaped by Jinja and set with textContent in the scripts.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import Flask, current_app, jsonify, request

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'; object-src 'none'"
)


class PinGuard:
    """Counts wrong PINs per (client, table) and locks a client out after too many."""

    def __init__(self, attempts: int = 5, lockout_seconds: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.attempts = attempts
        self.lockout_seconds = lockout_seconds
        self.clock = clock
        self._failures: dict[tuple[str, str], tuple[int, float]] = {}
        self._lock = threading.Lock()

    def locked_for(self, client: str, table_id: str) -> float:
        """Seconds this client must still wait before trying a PIN on this table (0: may try)."""
        with self._lock:
            count, until = self._failures.get((client, table_id), (0, 0.0))
            if count >= self.attempts:
                return max(0.0, until - self.clock())
            return 0.0

    def failed(self, client: str, table_id: str) -> None:
        with self._lock:
            if len(self._failures) > 10_000:  # bounded: forget the oldest lock-outs
                now = self.clock()
                self._failures = {k: v for k, v in self._failures.items() if v[1] > now}
            count, until = self._failures.get((client, table_id), (0, 0.0))
            if count >= self.attempts and until <= self.clock():
                count = 0  # the lock-out is over: a fresh series of attempts
            count += 1
            self._failures[(client, table_id)] = (count, self.clock() + self.lockout_seconds)

    def succeeded(self, client: str, table_id: str) -> None:
        with self._lock:
            self._failures.pop((client, table_id), None)


def init_app(app: Flask) -> None:
    service = app.config["TABLE_SERVICE"]
    app.extensions["pin_guard"] = PinGuard(
        app.config["PIN_ATTEMPTS"], app.config["PIN_LOCKOUT_SECONDS"], clock=service.clock.monotonic)
    app.before_request(_check_origin)
    app.after_request(_headers)


def _same_origin(origin: str) -> bool:
    parts = urlsplit(origin)
    return parts.scheme == request.scheme and parts.netloc == request.host


def _check_origin():
    if request.method not in UNSAFE_METHODS:
        return None
    origin = request.headers.get("Origin")
    if origin is not None and origin != "null" and not _same_origin(origin):
        return _refuse(403, "cross-site request refused")
    if origin == "null":
        return _refuse(403, "cross-site request refused")
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return _refuse(403, "cross-site request refused")
    if request.path.startswith("/api/") and request.content_length and not request.is_json and not _photo_upload():
        return _refuse(415, "send the request body as JSON (Content-Type: application/json)")
    return None


def _photo_upload() -> bool:
    """A photo sent to a camera check: the one API body that is not JSON (it still needs the PIN header)."""
    return request.endpoint in ("camera.create", "hints.read_hand_photo")


def _refuse(status: int, message: str):
    response = jsonify({"error": message})
    response.status_code = status
    return response


def _headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", CSP)
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def require_pin(table, body: dict[str, Any] | None):
    """None if the request carries the table's PIN, else the error response (401, 403 or 429)."""
    guard: PinGuard = current_app.extensions["pin_guard"]
    client = request.remote_addr or "?"
    wait = guard.locked_for(client, table.id)
    if wait > 0:
        response = _refuse(429, f"too many wrong PINs: try again in {int(wait) + 1} seconds")
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    pin = request.headers.get("X-Table-Pin")
    if pin is None and isinstance(body, dict):
        pin = body.get("pin")
    if pin is None or pin == "":
        return _refuse(401, "this table needs its PIN to change anything (ask the host)")
    if not table.check_pin(str(pin)):
        guard.failed(client, table.id)
        return _refuse(403, "wrong PIN for this table")
    guard.succeeded(client, table.id)
    return None
