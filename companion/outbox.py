"""A table service's outbox: every committed log entry shipped to the club server, in order, at least once.

The outbox is the table's own event log: nothing is copied. What the club
holds of each table is its cursor (the last seq it stored), which the club
answers after every batch and on request; everything in the log after the
cursor is still to ship. So a club killed mid-batch, a Wi-Fi that drops, a
Pi restarted or a club database restarted lose nothing: the next batch
starts where the club's committed data ends, and the club skips anything it
already has (it applies each (device, table, seq) exactly once).

Play never waits for the club: shipping runs on its own thread, woken after
each commit (`TableService.on_change`) and every `POLL_SECONDS`, backing off
up to `MAX_BACKOFF_SECONDS` while the club cannot be reached. A wrong join
code or a revoked key stops shipping until the table is started with a new
code (``status()["state"] == "refused"``); the log keeps everything meanwhile.

The device key is kept in ``<data dir>/club.json`` (owner only), with the
club's address, so the table joins once.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("companion.outbox")

BATCH_ENTRIES = 500  # entries in one request, all tables together
POLL_SECONDS = 30.0
MAX_BACKOFF_SECONDS = 30.0
REFUSED_RETRY_SECONDS = 300.0
TIMEOUT_SECONDS = 10.0
KEY_FILE = "club.json"
PLAYERS_FRESH_SECONDS = 10.0  # the club's player list is asked for again when older than this
PLAYERS_WAIT_SECONDS = 1.0  # how long a page's request waits for a fresher list


class ClubRefused(Exception):
    """The club answered 401: a wrong join code, or this table's key was revoked."""


class Outbox:
    """Ships one TableService's log to the club at `url`. `start()` runs it; `stop()` ends it."""

    def __init__(self, service, url: str, code: str | None, data_dir: str | os.PathLike, name: str = "",
                 clock: Callable[[], float] = time.time, batch_entries: int = BATCH_ENTRIES):
        self.service = service
        self.url = url.rstrip("/")
        self.code = code
        self.name = name or os.uname().nodename
        self.clock = clock
        self.batch_entries = batch_entries
        self.key_file = Path(data_dir) / KEY_FILE
        self._key: str | None = self._load_key()
        self._cursors: dict[str, int] | None = None  # None: ask the club
        self._last_cursors: dict[str, int] = {}
        self._wake = threading.Condition()
        self._woken = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.state = "starting"
        self.detail = ""
        self.shipped = 0  # entries the club has confirmed since start
        self.last_ok_ms: int | None = None
        self._players: list[str] = []  # the club's player names, as last fetched by the outbox's thread
        self._players_at = float("-inf")  # monotonic time of that fetch
        self._players_wanted = False

    # -- the key ------------------------------------------------------------------------------------

    def _load_key(self) -> str | None:
        try:
            saved = json.loads(self.key_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if isinstance(saved, dict) and saved.get("url") == self.url and isinstance(saved.get("key"), str):
            return saved["key"]
        return None  # another club's key (or none): join this one

    def _save_key(self, key: str, device_id: int) -> None:
        tmp = self.key_file.with_name(self.key_file.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"url": self.url, "device_id": device_id, "key": key}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.key_file)

    # -- running --------------------------------------------------------------------------------------

    def start(self) -> None:
        self.service.on_change = lambda table: self.wake()
        self._thread = threading.Thread(target=self._run, name="companion-outbox", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def wake(self) -> None:
        """Something was committed: ship it soon (called with a table locked; never blocks)."""
        with self._wake:
            self._woken = True
            self._wake.notify_all()

    def _sleep(self, seconds: float, wakeable: bool = True) -> None:
        deadline = time.monotonic() + seconds
        with self._wake:
            while not self._stopping and not self._players_wanted:
                if wakeable and self._woken:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._wake.wait(left)
            self._woken = False

    def _run(self) -> None:
        backoff = 1.0
        while not self._stopping:
            if self._players_wanted:
                self._fetch_players()
            try:
                more = self.ship_once()
                backoff = 1.0
                if not more:
                    self._sleep(POLL_SECONDS)
            except ClubRefused as exc:
                self.state, self.detail = "refused", str(exc)
                log.warning("the club refused this table: %s", exc)
                self._cursors = None
                self._sleep(REFUSED_RETRY_SECONDS, wakeable=False)
            except (OSError, ValueError) as exc:  # urllib's URLError is an OSError
                self.state, self.detail = "offline", _reason(exc)
                self._cursors = None  # ask again once back: the club may hold more than it confirmed
                self._sleep(backoff, wakeable=False)
                backoff = min(MAX_BACKOFF_SECONDS, backoff * 2)
            except Exception:  # a bug here must not stop the table; try again later
                log.exception("the outbox failed")
                self.state, self.detail = "offline", "internal error (see the log)"
                self._sleep(MAX_BACKOFF_SECONDS, wakeable=False)

    def ship_once(self) -> bool:
        """Join if needed, ask for the cursors if unknown, send one batch. True if more is waiting.

        Raises ClubRefused (401), OSError/URLError (unreachable, 5xx) and ValueError (a bad answer).
        """
        if self._key is None:
            self._join()
        if self._cursors is None:
            self._cursors = dict(self._call("GET", "/api/v1/cursor")["tables"])
            self._last_cursors = dict(self._cursors)
        batch = self._batch()
        if not batch:
            self.state, self.detail = "ok", ""
            self.last_ok_ms = int(self.clock() * 1000)
            return False
        answer = self._call("POST", "/api/v1/ingest", {"sent_ms": int(self.clock() * 1000), "tables": batch})
        stored = answer["tables"]
        progressed = False
        for shipped in batch:
            table_id = shipped["table_id"]
            new = int(stored.get(table_id, self._cursors.get(table_id, 0)))
            if table_id not in self._cursors and table_id in stored:
                progressed = True  # a new table, known to the club now
            if new > self._cursors.get(table_id, 0):
                self.shipped += new - self._cursors.get(table_id, 0)
                progressed = True
            self._cursors[table_id] = new
        self._last_cursors = dict(self._cursors)
        self.state, self.detail = "ok", ""
        self.last_ok_ms = int(self.clock() * 1000)
        if not progressed:
            raise ValueError("the club stored nothing of the batch")
        return self._behind() > 0

    def _join(self) -> None:
        if not self.code:
            raise ClubRefused("this table has not joined the club: start it with --club-code CODE")
        answer = self._call("POST", "/api/v1/join", {"code": self.code, "name": self.name[:80]}, keyed=False)
        self._key = answer["key"]
        self._save_key(self._key, int(answer["device_id"]))
        log.info("joined the club at %s as device %s", self.url, answer["device_id"])

    def _batch(self) -> list[dict[str, Any]]:
        """The oldest unshipped entries of each table, up to `batch_entries` in all."""
        cursors = self._cursors or {}
        room = self.batch_entries
        out = []
        for table in sorted(self.service.tables(), key=lambda t: t.record.created_ms):
            if room <= 0:
                break
            after = cursors.get(table.id, 0)
            if table.version <= after and table.id in cursors:
                continue
            entries = self.service.store.entries(table.id, after=after, limit=room)
            record = table.record
            out.append({
                "table_id": table.id, "game": record.game, "players": list(record.players),
                "options": record.options, "created_ms": record.created_ms,
                "entries": [{"seq": e.seq, "kind": e.kind, "body": e.body, "created_ms": e.created_ms} for e in entries],
            })
            room -= len(entries)
        return out

    def _behind(self) -> int:
        cursors = self._last_cursors
        return sum(max(0, t.version - cursors.get(t.id, 0)) for t in self.service.tables())

    def _call(self, method: str, path: str, body: Any = None, keyed: bool = True) -> dict[str, Any]:
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if keyed and self._key:
            request.add_header("Authorization", "Bearer " + self._key)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            message = _error_text(exc)
            if exc.code == 401:  # a wrong join code, or this table's key revoked: never joined again by itself
                raise ClubRefused(message) from None
            raise OSError(f"the club answered {exc.code}: {message}") from None
        if not isinstance(answer, dict):
            raise ValueError("the club's answer is not a JSON object")
        return answer

    # -- reporting ------------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """For /api/health: the club's address, the state, entries not yet stored there."""
        return {"url": self.url, "state": self.state, "detail": self.detail, "behind": self._behind(),
                "shipped": self.shipped, "last_ok_ms": self.last_ok_ms}

    def players(self) -> list[str]:
        """The club's player names (for the new-table form's "I am ..." list); [] before the club answered.

        Never calls the club itself: a page's request must not wait on the network. A list
        older than PLAYERS_FRESH_SECONDS is asked of the outbox's thread, which fetches it
        between batches; the request waits PLAYERS_WAIT_SECONDS at most, then takes what is known.
        """
        with self._wake:
            if self._thread is not None and time.monotonic() - self._players_at > PLAYERS_FRESH_SECONDS:
                self._players_wanted = True
                self._wake.notify_all()
                self._wake.wait_for(lambda: not self._players_wanted or self._stopping, PLAYERS_WAIT_SECONDS)
            return list(self._players)

    def _fetch_players(self) -> None:
        """On the outbox's thread: the club's player names, kept for `players()` (the old list if the club fails)."""
        try:
            if self._key is not None:
                names = self._call("GET", "/api/v1/players").get("players", [])
                self._players = [n for n in names if isinstance(n, str)]
        except (ClubRefused, OSError, ValueError):
            pass  # shipping reports the club's state; the form keeps the names it had
        with self._wake:
            self._players_at = time.monotonic()
            self._players_wanted = False
            self._wake.notify_all()


def _error_text(exc: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(exc.read()).get("error", exc.reason))
    except Exception:
        return str(exc.reason)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError) and exc.reason:
        return f"the club cannot be reached ({exc.reason})"
    return str(exc) or type(exc).__name__
