"""What keeps a table safe on a shared network.

- Anyone can watch; changing a table needs its PIN, sent by the page in the
  ``X-Table-Pin`` header (or ``"pin"`` in the JSON body). It is never a
  cookie, so a page on another site cannot act with a player's rights (CSRF).
- On top of that, unsafe requests from a browser must come from this origin
  (``Origin`` / ``Sec-Fetch-Site``), and API bodies must be JSON, which a
  cross-site HTML form cannot send.
- Wrong PINs are counted per client and table, and per table across every
  address: too many in a row lock that client out for a while, and at most
  `TABLE_PIN_ATTEMPTS` wrong PINs are looked at per table per
  `TABLE_PIN_WINDOW` seconds from any number of addresses, after which the
  table's PIN check rests, longer each time (so guessing a 4-digit PIN takes
  days, not seconds).
- A phone that gave the right PIN gets the table's token (``X-Table-Token``
  in the answer); sent back in the same header, it stands for the PIN and is
  never refused by a lock-out, so the table's own phones keep playing while
  someone guesses. Like the PIN it is a header, never a cookie.
- Request bodies are capped (MAX_CONTENT_LENGTH), pages get a strict
  Content-Security-Policy (no inline script, nothing from other hosts), and
  names are escaped by Jinja and set with textContent in the scripts.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import threading
import time
from collections import deque
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import Flask, current_app, g, jsonify, request

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
_CREATED = re.compile(r"^(?:https?://[^/]+)?/api/tables/([^/?#]+)$")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'; object-src 'none'"
)


class PinGuard:
    """Decides whether a PIN may be looked at now, per client and table and per table.

    - A client's wrong PINs on a table: `attempts` in a row lock that client
      out of that table for `lockout_seconds`.
    - A table's wrong PINs from everyone: at most `table_attempts` within any
      `table_window` seconds. One more locks the table's PIN check for a
      back-off that doubles at each new lock-out (from `table_window` up to
      `max_backoff` seconds) and starts again after `max_backoff` quiet seconds.

    `begin` reserves a place for the PIN about to be checked, so guesses
    arriving together cannot slip past the limit; `failed` or `succeeded`
    settles it.
    """

    def __init__(self, attempts: int = 5, lockout_seconds: float = 30.0, table_attempts: int = 30,
                 table_window: float = 30.0, max_backoff: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic):
        self.attempts = attempts
        self.lockout_seconds = lockout_seconds
        self.table_attempts = table_attempts
        self.table_window = table_window
        self.max_backoff = max_backoff
        self.clock = clock
        self._failures: dict[tuple[str, str], tuple[int, float]] = {}
        self._recent: dict[str, deque[float]] = {}  # table -> when its latest wrong PINs were looked at
        self._backoff: dict[str, tuple[int, float]] = {}  # table -> (lock-outs in a row, locked until)
        self._lock = threading.Lock()

    def _client_wait(self, client: str, table_id: str, now: float) -> float:
        count, until = self._failures.get((client, table_id), (0, 0.0))
        return max(0.0, until - now) if count >= self.attempts else 0.0

    def begin(self, client: str, table_id: str) -> float:
        """0 if a PIN from this client may be checked now (its place is then reserved), else the seconds to wait."""
        with self._lock:
            now = self.clock()
            wait = self._client_wait(client, table_id, now)
            strikes, until = self._backoff.get(table_id, (0, 0.0))
            if until > now:
                return max(wait, until - now)
            if wait > 0:
                return wait
            recent = self._recent.setdefault(table_id, deque())
            while recent and recent[0] <= now - self.table_window:
                recent.popleft()
            if len(recent) >= self.table_attempts:
                strikes = 1 if now - until >= self.max_backoff else strikes + 1
                rest = min(self.table_window * 2 ** (strikes - 1), self.max_backoff)
                self._backoff[table_id] = (strikes, now + rest)
                recent.clear()
                return rest
            recent.append(now)
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
        """The right PIN: it does not count against the table, and the client's count starts again."""
        with self._lock:
            self._failures.pop((client, table_id), None)
            recent = self._recent.get(table_id)
            if recent:
                recent.pop()


class TableTokens:
    """The per-table token a phone gets for the right PIN: an HMAC of the table id under a key
    that lives only in this process (a restart asks the phones for the PIN once more)."""

    HEADER = "X-Table-Token"

    def __init__(self, key: bytes | None = None):
        self._key = key or secrets.token_bytes(32)

    def token(self, table_id: str) -> str:
        digest = hmac.new(self._key, b"table-token\0" + table_id.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def valid(self, table_id: str, token: Any) -> bool:
        return isinstance(token, str) and len(token) < 100 and hmac.compare_digest(self.token(table_id), token)


def init_app(app: Flask) -> None:
    service = app.config["TABLE_SERVICE"]
    app.extensions["pin_guard"] = PinGuard(
        app.config["PIN_ATTEMPTS"], app.config["PIN_LOCKOUT_SECONDS"], app.config["TABLE_PIN_ATTEMPTS"],
        app.config["TABLE_PIN_WINDOW"], app.config["TABLE_PIN_MAX_BACKOFF"], clock=service.clock.monotonic)
    app.extensions["table_tokens"] = TableTokens()
    app.before_request(check_origin)
    app.after_request(secure_headers)
    app.after_request(_hand_out_token)


def _same_origin(origin: str) -> bool:
    parts = urlsplit(origin)
    return parts.scheme == request.scheme and parts.netloc == request.host


def check_origin():
    """Refuse an unsafe request from another site, or an API body that is not JSON (the club's app uses it too)."""
    if request.method not in UNSAFE_METHODS or request.routing_exception is not None:
        return None  # no such route or method: the 404 or 405 says so
    origin = request.headers.get("Origin")
    if origin is not None and origin != "null" and not _same_origin(origin):
        return refuse(403, "cross-site request refused")
    if origin == "null":
        return refuse(403, "cross-site request refused")
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return refuse(403, "cross-site request refused")
    if request.path.startswith("/api/") and request.content_length and not request.is_json and not _photo_upload():
        return refuse(415, "send the request body as JSON (Content-Type: application/json)")
    return None


def _photo_upload() -> bool:
    """A photo sent to a camera check: the one API body that is not JSON (it still needs the PIN header)."""
    from web import PHOTO_ENDPOINTS

    return request.endpoint in PHOTO_ENDPOINTS


def refuse(status: int, message: str):
    response = jsonify({"error": message})
    response.status_code = status
    return response


def secure_headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", CSP)
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _hand_out_token(response):
    """The table's token goes with every answer to the right PIN, and to the table's creator."""
    table_id = g.get("unlocked_table")
    if table_id is None and request.method == "POST" and request.path == "/api/tables" and response.status_code == 201:
        created = _CREATED.match(response.headers.get("Location", ""))  # the new table's address
        table_id = created.group(1) if created else None
    if table_id is not None:
        response.headers[TableTokens.HEADER] = current_app.extensions["table_tokens"].token(table_id)
    return response


def require_pin(table, body: dict[str, Any] | None):
    """None if the request carries the table's token or PIN, else the error response (401, 403 or 429).

    The client is the connection's own address (never a header a client can write).
    """
    tokens: TableTokens = current_app.extensions["table_tokens"]
    if request.path != f"/api/tables/{table.id}/pin" and tokens.valid(table.id, request.headers.get(TableTokens.HEADER)):
        return None  # POST .../pin asks "is this the PIN?": only the PIN answers that
    pin = request.headers.get("X-Table-Pin")
    if pin is None and isinstance(body, dict):
        pin = body.get("pin")
    if pin is None or pin == "":
        return refuse(401, "this table needs its PIN to change anything (ask the host)")
    guard: PinGuard = current_app.extensions["pin_guard"]
    client = request.remote_addr or "?"
    wait = guard.begin(client, table.id)
    if wait > 0:
        seconds = int(wait) + 1
        response = refuse(429, f"too many wrong PINs: try again in {seconds} seconds "
                                "(phones already unlocked keep working)")
        response.headers["Retry-After"] = str(seconds)
        return response
    if not table.check_pin(str(pin)):
        guard.failed(client, table.id)
        return refuse(403, "wrong PIN for this table")
    guard.succeeded(client, table.id)
    g.unlocked_table = table.id
    return None
