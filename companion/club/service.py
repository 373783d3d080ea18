"""The club server's service: devices, shipped logs applied exactly once, and what a club reads from them.

A table service ships its log entries in order, in batches, at least once
(companion.outbox). `ingest` applies each entry exactly once: an entry is
identified by (device, table, seq), entries at or below the table's stored
`last_seq` are acknowledged and skipped, and an entry after a gap is not
applied (the answer's cursor tells the table where to resume). Each batch is
one database transaction, committed before the answer, so a table is never
told "stored" about something the club could still lose.

The club folds every table's entries with the same game engines the tables
use (companion.tables.Table.replay), so it knows each game's round, scores,
whose turn it is and when it finished; an undo after the end takes the
result back. Results (one row per seat of a finished game) feed standings,
ratings (companion.club.ratings) and seatings (companion.club.seatings).

Players are the club's: a name typed at a table is matched to the club's
player of that name (case and spacing ignored), and a new name is added, so
one person's games at different tables and nights are one history.
"""
from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import logging
import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, Sequence

from companion import pins
from companion.club import ratings as rating_model
from companion.club import schema as s
from companion.club.seatings import propose
from companion.errors import InputError
from companion.games import get_game
from companion.spreadsheet import cell as _cell
from companion.store import KINDS, LogEntry, TableRecord
from companion.tables import Table, scores_of, winners_of
from companion.timer import SystemClock, TimerRecord

log = logging.getLogger("companion.club")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a room
CODE_LENGTH = 8
# A club night runs past midnight: a game begun before NIGHT_STARTS_HOUR belongs to the evening before.
NIGHT_STARTS_HOUR = 6
# Tables folded in memory (every unfinished one is kept; finished ones leave first).
FOLD_CACHE = 512
# A table shows on the live page while it is unfinished and played in this long, or finished this recently.
LIVE_SECONDS = 3 * 3600
FINISHED_LIVE_SECONDS = 20 * 60
MAX_NAME = 40


class Unauthorized(Exception):
    """A device key that is wrong or revoked, a wrong join code, or a wrong club PIN (HTTP 401)."""


class NotFound(LookupError):
    """No such table, player or device (HTTP 404)."""


def name_key(name: str) -> str:
    """A player's name as the club compares it: case and runs of spaces ignored."""
    return re.sub(r"\s+", " ", name).strip().casefold()[:MAX_NAME]


def night_of(ms: int) -> str:
    """The club night (YYYY-MM-DD, local time) that the moment `ms` belongs to."""
    moment = datetime.fromtimestamp(ms / 1000).astimezone() - timedelta(hours=NIGHT_STARTS_HOUR)
    return moment.date().isoformat()


def ranks_of(state_json: Any, players: int) -> tuple[list[float] | None, list[int]]:
    """(scores or None, rank per seat): the game's winners first, then by score; equal players share a rank."""
    scores = scores_of(state_json, players)
    winners = set(winners_of(state_json, players))
    keys = [(0 if i in winners else 1, -(scores[i] if scores else 0)) for i in range(players)]
    return scores, [1 + sum(other < key for other in keys) for key in keys]


@dataclass
class Shipped:
    """One table's batch as a device ships it (validated by the web layer's contract)."""

    table_id: str
    game: str
    players: list[str]
    options: dict[str, Any]
    created_ms: int
    entries: list[tuple[int, str, dict[str, Any], int]]  # (seq, kind, body, created_ms on the table's clock)


@dataclass
class _Folded:
    """A club table folded in memory: the engine's view of it, and its countdown on the club's clock."""

    table: Table | None  # None when the club has no engine for the game
    last_seq: int
    timer: TimerRecord | None = None
    skew_ms: int = 0  # club clock minus the table's clock, at its last shipment
    last_club_ms: int = 0
    view: tuple | None = None  # (what it was made from, the live page's summary)


class ClubService:
    """Everything the club server does, over one SQLAlchemy engine. Thread-safe."""

    def __init__(self, engine, clock: Callable[[], float] | None = None, pin: str | None = None):
        """`pin`: the club PIN to keep (stored as scrypt); None keeps the stored one (or makes one up, see `new_pin`)."""
        self.engine = engine
        self.clock = clock or SystemClock().time
        self.sqlite = engine.dialect.name == "sqlite"
        # SQLite has one writer at a time anyway; on PostgreSQL one device's batches serialise
        # (row locks keep different devices apart).
        self._write_lock = threading.Lock()
        self._device_locks: dict[int, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._keys: dict[str, int] = {}  # sha256 of a device key -> device id (revocation clears it)
        self._folded: OrderedDict[int, _Folded] = OrderedDict()
        self._player_cache: dict[str, int] = {}  # name_key -> player id (players are never deleted)
        self._results_cache: dict[str, tuple[int, list]] = {}  # game -> (results version, its finished games)
        self._fold_lock = threading.Lock()
        self._cond = threading.Condition()
        self._version = 0
        self._ratings: dict[str, tuple[int, list, rating_model.Rater]] = {}
        self._ratings_lock = threading.Lock()  # a Rater grows in place: one request at a time adds games to it
        self._results_version = 0
        self.new_pin: str | None = None  # the PIN made up at this start, to print once
        self._settings(pin)

    # -- settings, PIN and join code ------------------------------------------

    def _settings(self, pin: str | None) -> None:
        with self.engine.begin() as db:
            stored = dict(db.execute(s.settings.select()).all())
            if "join_code" not in stored:
                db.execute(s.settings.insert().values(key="join_code", value=_code()))
            if pin is None and "pin_hash" not in stored:
                pin = self.new_pin = f"{secrets.randbelow(1_000_000):06d}"
            if pin is not None:
                if not re.fullmatch(r"[0-9A-Za-z]{4,32}", pin):
                    raise InputError("--pin: the club PIN is 4 to 32 letters or digits")
                salt = pins.new_salt()
                for key, value in (("pin_salt", salt), ("pin_hash", pins.hash_pin(pin, salt))):
                    db.execute(s.settings.delete().where(s.settings.c.key == key))
                    db.execute(s.settings.insert().values(key=key, value=value))

    def _setting(self, key: str) -> str:
        with self.engine.connect() as db:
            return db.execute(s.settings.select().where(s.settings.c.key == key)).one().value

    def check_pin(self, pin: Any) -> None:
        """Raises Unauthorized unless `pin` is the club PIN."""
        if not isinstance(pin, str) or not pin or len(pin) > 64:
            raise Unauthorized("the club PIN is needed for this")
        if not pins.verify(pin, self._setting("pin_salt"), self._setting("pin_hash")):
            raise Unauthorized("wrong club PIN")

    def join_code(self) -> str:
        return self._setting("join_code")

    def new_join_code(self, pin: Any) -> str:
        """A fresh join code (devices already joined keep their keys). Raises Unauthorized."""
        self.check_pin(pin)
        code = _code()
        with self.engine.begin() as db:
            db.execute(s.settings.update().where(s.settings.c.key == "join_code").values(value=code))
        return code

    # -- devices ----------------------------------------------------------------

    def join(self, code: Any, name: Any) -> tuple[int, str]:
        """Register a device that knows the join code; returns (device id, its key). Raises Unauthorized, InputError."""
        if not isinstance(code, str) or not hmac.compare_digest(code.strip().upper().encode(), self.join_code().encode()):
            raise Unauthorized("wrong join code: the organiser finds it on the club page, under Tables & devices")
        name = _clean_name(name, "device name", 80) or "table"
        key = secrets.token_urlsafe(32)
        with self.engine.begin() as db:
            device_id = db.execute(s.devices.insert().values(
                name=name, key_hash=_key_hash(key), created_ms=self._now_ms())).inserted_primary_key[0]
        log.info("device %d (%s) joined the club", device_id, name)  # never the key
        return int(device_id), key

    def device(self, key: Any) -> int:
        """The device id of a key. Raises Unauthorized for a wrong or revoked key."""
        if not isinstance(key, str) or not key or len(key) > 200:
            raise Unauthorized("this table has no club key: join the club first")
        digest = _key_hash(key)
        known = self._keys.get(digest)
        if known is not None:
            return known
        with self.engine.connect() as db:
            row = db.execute(s.devices.select().where(s.devices.c.key_hash == digest)).first()
        if row is None or row.revoked_ms is not None:
            raise Unauthorized("this table's club key was revoked or is unknown: join the club again")
        self._keys[digest] = row.id
        return row.id

    def devices(self) -> list[dict[str, Any]]:
        with self.engine.connect() as db:
            rows = db.execute(s.devices.select().order_by(s.devices.c.id)).all()
            counts = dict(db.execute(s.tables.select().with_only_columns(
                s.tables.c.device_id, _count()).group_by(s.tables.c.device_id)).all())
        return [{"id": r.id, "name": r.name, "created_ms": r.created_ms, "last_seen_ms": r.last_seen_ms,
                 "revoked": r.revoked_ms is not None, "tables": counts.get(r.id, 0)} for r in rows]

    def revoke(self, device_id: Any, pin: Any) -> None:
        """Refuse the device's key from now on. Raises Unauthorized (PIN), NotFound."""
        self.check_pin(pin)
        with self.engine.begin() as db:
            changed = db.execute(s.devices.update().where(s.devices.c.id == device_id)
                                 .values(revoked_ms=self._now_ms())).rowcount
        if not changed:
            raise NotFound(f"no device {device_id}")
        self._keys = {k: v for k, v in self._keys.items() if v != device_id}
        log.info("device %s revoked", device_id)

    # -- ingest -----------------------------------------------------------------

    def cursors(self, device_id: int) -> dict[str, int]:
        """Every table of the device with the last seq the club holds."""
        with self.engine.connect() as db:
            rows = db.execute(s.tables.select().with_only_columns(s.tables.c.table_id, s.tables.c.last_seq)
                              .where(s.tables.c.device_id == device_id)).all()
        return {r.table_id: r.last_seq for r in rows}

    def _device_lock(self, device_id: int) -> threading.Lock:
        if self.sqlite:
            return self._write_lock
        with self._locks_lock:
            return self._device_locks.setdefault(device_id, threading.Lock())

    def ingest(self, device_id: int, batches: Sequence[Shipped], sent_ms: int) -> dict[str, int]:
        """Apply shipped entries exactly once; returns each shipped table's last stored seq.

        `sent_ms` is the table's clock when it sent the batch: the club keeps
        each entry's time on its own clock too (their difference is the skew).
        Entries past a gap are left for the table to send again.
        """
        now = self._now_ms()
        skew = now - sent_ms
        changed: list[tuple[int, _Folded]] = []
        answer: dict[str, int] = {}
        with self._device_lock(device_id):
            try:
                with self.engine.begin() as db:
                    # The connection's info outlives a rolled-back transaction: start clean.
                    db.info.pop("new_players", None)
                    db.info.pop("results_changed", None)
                    db.execute(s.devices.update().where(s.devices.c.id == device_id).values(last_seen_ms=now))
                    for batch in batches:
                        ref, folded, last = self._ingest_table(db, device_id, batch, skew, now)
                        answer[batch.table_id] = last
                        if folded is not None:
                            changed.append((ref, folded))
                    new_players = db.info.pop("new_players", {})
                    results_changed = db.info.pop("results_changed", False)
                self._player_cache.update(new_players)
                if results_changed:  # after the commit: a reader never keeps results older than their version
                    self._results_version += 1
            except BaseException:
                with self._fold_lock:  # what was folded ahead of a failed commit is folded again from the database
                    for ref, _ in changed:
                        self._folded.pop(ref, None)
                raise
        if changed:
            with self._fold_lock:
                for ref, folded in changed:
                    self._folded[ref] = folded
                    self._folded.move_to_end(ref)
                self._trim()
            self._bump()
        return answer

    def _ingest_table(self, db, device_id: int, batch: Shipped, skew: int, now: int):
        t = s.tables
        query = t.select().where(t.c.device_id == device_id, t.c.table_id == batch.table_id)
        if not self.sqlite:
            query = query.with_for_update()
        row = db.execute(query).first()
        if row is None:
            names = [_clean_name(n, "player name", MAX_NAME) or f"Player {i + 1}" for i, n in enumerate(batch.players)]
            created = batch.created_ms + skew
            row = db.execute(t.insert().values(
                device_id=device_id, table_id=batch.table_id, game=batch.game, players=_dumps(names),
                options=_dumps(batch.options), created_ms=created, night=night_of(created), last_seq=0,
            ).returning(*t.c)).one()
            self._player_ids(db, names)
        new, fresh = [], []
        last = row.last_seq
        for seq, kind, body, created_ms in sorted(batch.entries, key=lambda e: e[0]):
            if seq <= last:
                continue  # delivered before: stored once already
            if seq != last + 1 or kind not in KINDS:
                break  # a gap: the table sends again from the cursor
            new.append({"table_ref": row.id, "seq": seq, "kind": kind, "body": _dumps(body),
                        "created_ms": created_ms, "club_ms": created_ms + skew})
            fresh.append(LogEntry(seq, kind, body, None, created_ms))
            last = seq
        if not new:
            return row.id, None, last
        db.execute(s.entries.insert(), new)
        folded = self._fold(db, row, upto=row.last_seq)
        folded.timer = _replay(folded.table, fresh) or folded.timer
        folded.last_seq = last
        folded.skew_ms = skew
        folded.last_club_ms = new[-1]["club_ms"]
        values: dict[str, Any] = {"last_seq": last}
        finished = folded.table is not None and bool(folded.table.game.finished(folded.table.state))
        if finished and row.finished_ms is None:
            values["finished_ms"] = new[-1]["club_ms"]
            self._write_results(db, row, folded.table, values["finished_ms"])
        elif not finished and row.finished_ms is not None:
            values["finished_ms"] = None  # an undo after the end: the result is taken back
            db.execute(s.results.delete().where(s.results.c.table_ref == row.id))
            db.info["results_changed"] = True
        db.execute(t.update().where(t.c.id == row.id).values(**values))
        return row.id, folded, last

    def _write_results(self, db, row, table: Table, finished_ms: int) -> None:
        names = json.loads(row.players)
        ids = self._player_ids(db, names)
        scores, ranks = ranks_of(table.game.to_json(table.state), len(names))
        db.execute(s.results.insert(), [
            {"table_ref": row.id, "seat": i, "player_id": ids[i], "game": row.game, "night": row.night,
             "finished_ms": finished_ms, "score": scores[i] if scores else None, "rank": ranks[i], "seats": len(names)}
            for i in range(len(names))])
        db.info["results_changed"] = True

    def _player_ids(self, db, names: Sequence[str]) -> list[int]:
        """The club player of each name, added if new (two tables adding one name at once make one player)."""
        if self.sqlite:
            from sqlalchemy.dialects.sqlite import insert
        else:
            from sqlalchemy.dialects.postgresql import insert
        keys = [name_key(n) for n in names]
        known = self._player_cache
        missing = {k: n for k, n in zip(keys, names) if k not in known}
        if missing:
            now = self._now_ms()
            db.execute(insert(s.players).values([{"name": n, "name_key": k, "created_ms": now}
                                                 for k, n in missing.items()])
                       .on_conflict_do_nothing(index_elements=["name_key"]))
            found = dict(db.execute(s.players.select().with_only_columns(s.players.c.name_key, s.players.c.id)
                                    .where(s.players.c.name_key.in_(list(missing)))).all())
            # Kept only once committed: a rolled-back insert must not leave an id behind.
            db.info.setdefault("new_players", {}).update(found)
            known = {**known, **found}
        return [known[k] for k in keys]

    def _fold(self, db, row, upto: int | None = None) -> _Folded:
        """The table folded up to `upto` (default: all it holds), from the cache or the database."""
        upto = row.last_seq if upto is None else upto
        with self._fold_lock:
            cached = self._folded.get(row.id)
        if cached is not None and cached.last_seq == upto:
            return cached
        try:
            game = get_game(row.game)
        except (KeyError, ImportError):
            game = None
        table = None
        if game is not None:
            record = TableRecord(row.table_id, row.game, json.loads(row.players), json.loads(row.options),
                                 "", "", row.created_ms, row.finished_ms)
            table = Table(record, game, SystemClock())
        entries = db.execute(s.entries.select().where(s.entries.c.table_ref == row.id, s.entries.c.seq <= upto)
                             .order_by(s.entries.c.seq)).all() if upto else []
        timer = _replay(table, [LogEntry(e.seq, e.kind, json.loads(e.body), None, e.created_ms) for e in entries])
        if not entries:
            return _Folded(table, 0, timer)
        last = entries[-1]
        return _Folded(table, last.seq, timer, skew_ms=last.club_ms - last.created_ms, last_club_ms=last.club_ms)

    def _trim(self) -> None:
        while len(self._folded) > FOLD_CACHE:
            self._folded.popitem(last=False)

    # -- change notification (the live page) ------------------------------------

    @property
    def version(self) -> int:
        return self._version

    def _bump(self) -> None:
        with self._cond:
            self._version += 1
            self._cond.notify_all()

    def wait_change(self, seen: int, timeout: float) -> int:
        """Block until the version is past `seen` or `timeout` passes; returns the version."""
        with self._cond:
            self._cond.wait_for(lambda: self._version != seen, timeout)
            return self._version

    def poke(self) -> None:
        """Wake the live pages (a seating saved, a device revoked)."""
        self._bump()

    # -- reading ----------------------------------------------------------------

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def tonight(self) -> str:
        return night_of(self._now_ms())

    def _summary(self, row, folded: _Folded, device_names: dict[int, str]) -> dict[str, Any]:
        """The table as the live page shows it (kept until the table changes: the page is rebuilt often)."""
        key = (row.last_seq, row.finished_ms, device_names.get(row.device_id, ""), folded.last_seq)
        if folded.view is not None and folded.view[0] == key:
            return folded.view[1]
        item = self._summary_of(row, folded, device_names)
        folded.view = (key, item)
        return item

    def _summary_of(self, row, folded: _Folded, device_names: dict[int, str]) -> dict[str, Any]:
        names = json.loads(row.players)
        item: dict[str, Any] = {
            "ref": row.id, "table_id": row.table_id, "device": device_names.get(row.device_id, ""),
            "game": row.game, "title": row.game, "players": names, "round": None, "turn": None,
            "scores": None, "winners": [], "finished": row.finished_ms is not None,
            "finished_ms": row.finished_ms, "created_ms": row.created_ms, "last_ms": folded.last_club_ms,
            "seq": row.last_seq, "countdown": None,
        }
        table = folded.table
        if table is not None:
            with table.lock:
                state = table.game.to_json(table.state)
            item["title"] = table.game.title
            item.update(_round_and_turn(state, names))
            item["scores"] = scores_of(state, len(names))
            if item["finished"]:
                item["winners"] = [names[i] for i in winners_of(state, len(names))]
        timer = folded.timer
        if timer is not None and timer.status in ("running", "paused", "expired"):
            deadline = timer.deadline_wall_ms + folded.skew_ms if timer.status == "running" and timer.deadline_wall_ms else None
            item["countdown"] = {"status": timer.status, "remaining_ms": timer.remaining_ms, "deadline_ms": deadline,
                                 "duration_ms": timer.duration_ms}
        return item

    def _device_names(self, db) -> dict[int, str]:
        return dict(db.execute(s.devices.select().with_only_columns(s.devices.c.id, s.devices.c.name)).all())

    def overview(self) -> dict[str, Any]:
        """The live page: every table playing now (and just finished), tonight's results, the version."""
        version = self._version
        now = self._now_ms()
        t = s.tables
        with self.engine.connect() as db:
            rows = db.execute(t.select().where(
                ((t.c.finished_ms.is_(None)) & (t.c.created_ms > now - 24 * 3600 * 1000))
                | (t.c.finished_ms > now - FINISHED_LIVE_SECONDS * 1000)).order_by(t.c.id)).all()
            names = self._device_names(db)
            live = []
            for row in rows:
                folded = self._fold(db, row)
                if row.finished_ms is None and folded.last_club_ms and folded.last_club_ms < now - LIVE_SECONDS * 1000:
                    continue  # abandoned at the end of an earlier night
                live.append(self._summary(row, folded, names))
        night = night_of(now)
        return {"version": version, "server_time_ms": now, "night": night, "tables": live,
                "results": self.results(night)}

    def results(self, night: str | None = None) -> list[dict[str, Any]]:
        """Finished games (of one night, or all), newest first, each with its seats in order of finish."""
        r, p = s.results, s.players
        query = (r.join(p, r.c.player_id == p.c.id).join(s.tables, r.c.table_ref == s.tables.c.id)
                 .select().with_only_columns(r.c.table_ref, r.c.seat, r.c.game, r.c.night, r.c.finished_ms,
                                             r.c.score, r.c.rank, p.c.id.label("player_id"), p.c.name,
                                             s.tables.c.table_id))
        if night is not None:
            query = query.where(r.c.night == night)
        with self.engine.connect() as db:
            rows = db.execute(query.order_by(r.c.finished_ms.desc(), r.c.table_ref.desc(), r.c.rank, r.c.seat)).all()
        games: dict[int, dict[str, Any]] = {}
        for row in rows:
            game = games.setdefault(row.table_ref, {
                "ref": row.table_ref, "table_id": row.table_id, "game": row.game, "title": game_title(row.game),
                "night": row.night, "finished_ms": row.finished_ms, "seats": []})
            game["seats"].append({"player_id": row.player_id, "name": row.name, "score": _number(row.score),
                                  "rank": row.rank})
        return list(games.values())

    def table(self, ref: int) -> dict[str, Any]:
        """One table: its summary and its score steps. Raises NotFound."""
        with self.engine.connect() as db:
            row = db.execute(s.tables.select().where(s.tables.c.id == ref)).first()
            if row is None:
                raise NotFound(f"no table {ref}")
            folded = self._fold(db, row)
            item = dict(self._summary(row, folded, self._device_names(db)))
        item["night"] = row.night
        item["steps"] = folded.table.score_steps() if folded.table is not None else []
        item["chart_players"] = json.loads(row.players)
        return item

    def players(self) -> list[dict[str, Any]]:
        """The club's player list, by name."""
        r = s.results
        with self.engine.connect() as db:
            rows = db.execute(s.players.select().order_by(s.players.c.name_key)).all()
            games = dict(db.execute(r.select().with_only_columns(r.c.player_id, _count()).group_by(r.c.player_id)).all())
        return [{"id": p.id, "name": p.name, "games": games.get(p.id, 0)} for p in rows]

    def player(self, player_id: int) -> dict[str, Any]:
        """A player's games (newest first), statistics and ratings per game. Raises NotFound."""
        r = s.results
        with self.engine.connect() as db:
            person = db.execute(s.players.select().where(s.players.c.id == player_id)).first()
            if person is None:
                raise NotFound(f"no player {player_id}")
            mine = db.execute(r.select().where(r.c.player_id == player_id)
                              .order_by(r.c.finished_ms.desc(), r.c.table_ref.desc())).all()
            refs = [m.table_ref for m in mine]
            others = db.execute(r.join(s.players, r.c.player_id == s.players.c.id).select()
                                .with_only_columns(r.c.table_ref, r.c.seat, r.c.rank, r.c.score, s.players.c.name)
                                .where(r.c.table_ref.in_(refs)).order_by(r.c.rank, r.c.seat)).all() if refs else []
        seats: dict[int, list] = {}
        for o in others:
            seats.setdefault(o.table_ref, []).append({"name": o.name, "rank": o.rank, "score": _number(o.score)})
        history, stats = [], {}
        for m in mine:
            history.append({"ref": m.table_ref, "game": m.game, "title": game_title(m.game), "night": m.night,
                            "finished_ms": m.finished_ms, "rank": m.rank, "seats": m.seats, "score": _number(m.score),
                            "table": seats.get(m.table_ref, [])})
            st = stats.setdefault(m.game, {"game": m.game, "title": game_title(m.game), "games": 0, "wins": 0,
                                           "score_total": 0.0, "scored": 0, "best": None})
            st["games"] += 1
            st["wins"] += m.rank == 1
            if m.score is not None:
                st["score_total"] += m.score
                st["scored"] += 1
                st["best"] = m.score if st["best"] is None else max(st["best"], m.score)
        for st in stats.values():
            st["average_score"] = round(st.pop("score_total") / st["scored"], 1) if st["scored"] else None
            st.pop("scored")
            st["best"] = _number(st["best"])
            rating = self.ratings(st["game"]).get(player_id)
            st["rating"] = rating.to_json() if rating else None
        return {"id": person.id, "name": person.name, "history": history, "statistics": list(stats.values())}

    def games_played(self) -> list[str]:
        """The games the club has results for, most played first."""
        r = s.results
        with self.engine.connect() as db:
            rows = db.execute(r.select().with_only_columns(r.c.game, _count()).group_by(r.c.game)).all()
        return [g for g, _ in sorted(rows, key=lambda x: (-x[1], x[0]))]

    def _all_results(self, game: str) -> list[tuple[int, str, list[tuple[int, int, float | None]]]]:
        """[(table ref, night, [(player_id, rank, score), ...]), ...] of every finished game of `game`, oldest first.

        Read once per change of the results and kept: standings, ratings and
        seatings of every night and season are cut from it.
        """
        version = self._results_version
        cached = self._results_cache.get(game)
        if cached and cached[0] == version:
            return cached[1]
        r = s.results
        query = (r.select().with_only_columns(r.c.table_ref, r.c.night, r.c.player_id, r.c.rank, r.c.score)
                 .where(r.c.game == game).order_by(r.c.finished_ms, r.c.table_ref, r.c.seat))
        games: OrderedDict[int, tuple[int, str, list]] = OrderedDict()
        with self.engine.connect() as db:
            for ref, night, player, rank, score in db.execute(query):
                entry = games.get(ref)
                if entry is None:
                    entry = games[ref] = (ref, night, [])
                entry[2].append((player, rank, score))
        out = list(games.values())
        self._results_cache[game] = (version, out)
        return out

    def _game_results(self, game: str, night: str | None = None, season: str | None = None):
        """[[(player_id, rank, score), ...], ...] of finished games (of a night, a season or all), oldest first."""
        prefix = f"{season}-" if season else None
        return [seats for _, n, seats in self._all_results(game)
                if (night is None or n == night) and (prefix is None or n.startswith(prefix))]

    def _names(self) -> dict[int, str]:
        with self.engine.connect() as db:
            return dict(db.execute(s.players.select().with_only_columns(s.players.c.id, s.players.c.name)).all())

    def ratings(self, game: str) -> dict[int, rating_model.Rating]:
        """Every player's rating in `game` after all its finished games.

        Kept between changes. A change that only adds games after the last one
        rated (the usual case: a game just finished) rates just those, from
        the ratings kept; anything else (an undo after the end, a game shipped
        late that finished earlier) rates every game again, oldest first.
        """
        with self._ratings_lock:
            version = self._results_version
            cached = self._ratings.get(game)
            if cached and cached[0] == version:
                return cached[2].ratings()
            games = self._all_results(game)
            done: list = cached[1] if cached else []
            if cached and len(done) <= len(games) and games[:len(done)] == done:
                rater = cached[2]
            else:
                rater, done = rating_model.Rater(), []
            rater.rate([[(p, rank) for p, rank, _ in seats] for _, _, seats in games[len(done):]])
            self._ratings[game] = (version, games, rater)
            return rater.ratings()

    def standings(self, game: str, night: str | None = None, season: str | None = None) -> list[dict[str, Any]]:
        """Players of `game` for a night, a season (a year, "2026") or all time, best first.

        Points: each opponent a player finished ahead of is 1, each tie ½ (so
        a win at a table of four is 3). Ties in points go to more wins, then
        the higher rating. The rating (all time) is shown with its uncertainty.
        """
        names = self._names()
        ratings = self.ratings(game)
        table: dict[int, dict[str, Any]] = {}
        for seats in self._game_results(game, night, season):
            for player, rank, score in seats:
                row = table.setdefault(player, {"player_id": player, "name": names.get(player, "?"), "games": 0,
                                                "wins": 0, "points": 0.0, "score_total": 0.0, "scored": 0})
                row["games"] += 1
                row["wins"] += rank == 1
                row["points"] += sum(1.0 if rank < other else 0.5 if rank == other else 0.0
                                     for p2, other, _ in seats if p2 != player)
                if score is not None:
                    row["score_total"] += score
                    row["scored"] += 1
        rows = []
        for row in table.values():
            rating = ratings.get(row["player_id"])
            row["average_score"] = round(row.pop("score_total") / row["scored"], 1) if row["scored"] else None
            row.pop("scored")
            row["points"] = _number(row["points"])
            row["rating"] = round(rating.ordinal, 1) if rating else None
            row["uncertainty"] = round(rating.sigma, 1) if rating else None
            rows.append(row)
        rows.sort(key=lambda x: (-x["points"], -x["wins"], -(x["rating"] or -1e9), name_key(x["name"])))
        for place, row in enumerate(rows, start=1):
            row["place"] = place
        return rows

    # -- seatings ---------------------------------------------------------------

    def seating_players(self, night: str) -> list[int]:
        """Who is here tonight: every player of a game begun this night."""
        t = s.tables
        with self.engine.connect() as db:
            rows = db.execute(t.select().with_only_columns(t.c.players).where(t.c.night == night)).all()
            names = {name_key(n) for row in rows for n in json.loads(row.players)}
            found = db.execute(s.players.select().where(s.players.c.name_key.in_(names))).all() if names else []
        return [p.id for p in found]

    def propose_seating(self, game: str, night: str) -> list[list[int]]:
        """Tables of 2-4 for the next round of tonight's players: by tonight's points, then rating; apart
        from tonight's opponents. Raises InputError for fewer than 2 players.
        """
        ids = self.seating_players(night)
        if len(ids) < 2:
            raise InputError("a seating needs at least 2 players here tonight")
        tonight = {row["player_id"]: row for row in self.standings(game, night=night)}
        ratings = self.ratings(game)
        ids.sort(key=lambda p: (-(tonight[p]["points"] if p in tonight else 0),
                                -(ratings[p].ordinal if p in ratings else -1e9), p))
        met = {frozenset((a, b)) for seats in self._game_results(game, night=night)
               for i, (a, _, _) in enumerate(seats) for b, _, _ in seats[i + 1:]}
        return propose(ids, met)

    def save_seating(self, game: str, night: str, round_: int, tables: Any, pin: Any) -> dict[str, Any]:
        """Keep the organiser's seating (as proposed or adjusted). Raises Unauthorized, InputError."""
        self.check_pin(pin)
        known = set(self._names())
        if (not isinstance(tables, list) or not tables
                or not all(isinstance(tb, list) and 2 <= len(tb) <= 4 for tb in tables)):
            raise InputError("tables: a list of tables of 2 to 4 player ids each")
        seated = [p for tb in tables for p in tb]
        if not all(isinstance(p, int) and not isinstance(p, bool) and p in known for p in seated):
            raise InputError("tables: every seat must be a club player's id")
        if len(set(seated)) != len(seated):
            raise InputError("tables: a player is seated twice")
        with self.engine.begin() as db:
            db.execute(s.seatings.delete().where(s.seatings.c.night == night, s.seatings.c.round == round_,
                                                 s.seatings.c.game == game))
            db.execute(s.seatings.insert().values(night=night, round=round_, game=game, body=_dumps(tables),
                                                  created_ms=self._now_ms()))
        self.poke()
        return self.seating(night, game)  # type: ignore[return-value]

    def seating(self, night: str, game: str | None = None) -> dict[str, Any] | None:
        """The latest saved seating of the night (of `game`, if given), with names."""
        q = s.seatings.select().where(s.seatings.c.night == night)
        if game:
            q = q.where(s.seatings.c.game == game)
        with self.engine.connect() as db:
            row = db.execute(q.order_by(s.seatings.c.round.desc(), s.seatings.c.id.desc())).first()
        if row is None:
            return None
        names = self._names()
        tables = json.loads(row.body)
        return {"night": row.night, "round": row.round, "game": row.game, "title": game_title(row.game),
                "tables": [[{"player_id": p, "name": names.get(p, "?")} for p in tb] for tb in tables]}

    def next_round(self, night: str, game: str) -> int:
        with self.engine.connect() as db:
            last = db.execute(s.seatings.select().with_only_columns(s.seatings.c.round)
                              .where(s.seatings.c.night == night, s.seatings.c.game == game)
                              .order_by(s.seatings.c.round.desc())).first()
        return (last.round if last else 0) + 1

    def player_names(self, ids: Iterable[int]) -> dict[int, str]:
        names = self._names()
        return {i: names.get(i, "?") for i in ids}

    # -- export -----------------------------------------------------------------

    def export_json(self, night: str | None = None) -> dict[str, Any]:
        return {"night": night, "results": self.results(night), "players": self.players()}

    def export_csv(self, night: str | None = None) -> str:
        """One row per seat of every finished game (of a night, or all); safe to open in a spreadsheet."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(["night", "finished_utc", "game", "table", "player", "rank", "score"])
        for game in self.results(night):
            for seat in game["seats"]:
                writer.writerow([_cell(v) for v in (
                    game["night"], datetime.fromtimestamp(game["finished_ms"] / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
                    game["title"], game["table_id"], seat["name"], seat["rank"], seat["score"])])
        return out.getvalue()

    # -- health -----------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        from sqlalchemy import text
        try:
            with self.engine.connect() as db:
                db.execute(text("SELECT 1"))
            return {"ok": True, "database": self.engine.dialect.name}
        except Exception as exc:
            return {"ok": False, "database": self.engine.dialect.name, "detail": "the club database cannot be reached"
                    f" ({type(exc).__name__})"}


def _round_and_turn(state: Any, names: list[str]) -> dict[str, Any]:
    """The round and whose turn it is, from whichever of the games' shapes the state has."""
    out: dict[str, Any] = {"round": None, "turn": None}
    if not isinstance(state, dict):
        return out
    if isinstance(state.get("round"), int) and not isinstance(state.get("round"), bool):
        out["round"] = state["round"]
    current = state.get("current")
    if isinstance(current, dict) and isinstance(current.get("name"), str):
        out["turn"] = current["name"]
    elif isinstance(state.get("turn_name"), str):
        out["turn"] = state["turn_name"]
    else:
        turn = state.get("turn")
        player = turn.get("player") if isinstance(turn, dict) else state.get("next_player")
        if isinstance(player, int) and not isinstance(player, bool) and 0 <= player < len(names):
            out["turn"] = names[player]
    if state.get("finished") or state.get("phase") == "finished":
        out["turn"] = None
    return out


def _replay(table: Table | None, entries: Sequence[LogEntry]) -> TimerRecord | None:
    """Fold entries onto a club table; the last countdown logged. Without an engine only countdowns are read."""
    if table is not None:
        with table.lock:
            return table.replay(entries)
    timers = [e.body for e in entries if e.kind == "timer"]
    return TimerRecord.from_json(timers[-1]) if timers else None


def game_title(game_id: str) -> str:
    """The game's title, or its id when the club has no engine for it."""
    try:
        return get_game(game_id).title
    except (KeyError, ImportError):
        return game_id


def _number(value: float | None):
    if value is None:
        return None
    return int(value) if float(value).is_integer() else round(value, 1)


def _count():
    from sqlalchemy import func
    return func.count()


def _code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _key_hash(key: str) -> str:
    # Device keys are long random tokens: a plain SHA-256 is enough to keep them out of the database.
    return hashlib.sha256(key.encode()).hexdigest()


def _clean_name(value: Any, what: str, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{what} must be text")
    value = re.sub(r"\s+", " ", value).strip()
    if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise InputError(f"{what} has control characters")
    return value[:limit]


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
