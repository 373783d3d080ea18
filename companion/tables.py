"""Tables: a game engine, its event log, the countdown and everyone watching.

A `Table` is one game being played. Its state is the engine's fold of the
effective events of its log (events, minus the undone ones, plus the redone
ones); its version is the number of the last log entry, so every change a
phone must see (an action, an undo, a timer press) moves it on. Every change
is written to the store and committed before it is made current and before
anyone is answered, and then everyone waiting on the table is woken.

The `TableService` holds every table, resumes them from the store at start,
keeps each table's countdown in step with what the rules ask for
(`timer_request`), fires expired countdowns exactly once, and drives the
physical (or simulated) timer outputs. It knows nothing about any particular
game: the engine contract in companion.games.base is all it uses.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from companion import pins
from companion.devices import TimerOutput
from companion.errors import InputError
from companion.games import available_games, get_game
from companion.games.base import Game, OptionError, RuleError
from companion.store import EventStore, LogEntry, NewEntry, StoreConflict, TableRecord
from companion.timer import MAX_SECONDS, Clock, Countdown, SystemClock, TimerError, TimerRecord

log = logging.getLogger(__name__)

MAX_PLAYER_NAME = 24
MAX_EVENT_KEYS = 16
MAX_TYPE_LENGTH = 40
MAX_ACTION_ID = 64
# Keys of an action request that are for the service, not for the engine.
SERVICE_KEYS = frozenset({"action_id", "expected_version", "pin"})
# Kept with the event in the log but never shown to the engine: the player whose phone tapped
# (so the phones can say "Ann marked Cy's grid wrong").
BY = "by"
# An event the service itself logs: a countdown the rules asked for was cancelled by hand. It
# leaves the game's state as it is, and Undo takes it back like any event.
TIMER_CANCELLED = "timer-cancelled"
# Options that are the service's, not the engine's.
SERVICE_OPTIONS = frozenset({"pin"})
ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: ids are read aloud
# Remembers a PIN once checked (in this process only), so that only the first check pays for scrypt.
_MEMO_KEY = secrets.token_bytes(32)


def _memo(pin: str) -> bytes:
    return hmac.new(_MEMO_KEY, pin.encode(), hashlib.sha256).digest()


class TableNotFound(LookupError):
    """No table has that id."""


class VersionConflict(Exception):
    """The action was meant for an older version of the table (someone else acted first)."""

    def __init__(self, expected: int, current: int):
        super().__init__(f"the table changed: you saw version {expected}, it is now at {current}")
        self.expected = expected
        self.current = current


class NothingToUndo(Exception):
    """Undo with no events, or redo with nothing undone."""


# Control characters a name shown on pages, in SVG and in CSV must not hold (whitespace is folded).
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x9f]")


def _is_text(value: str) -> bool:
    """True for Unicode text with no NUL: what the store can write and a page can show."""
    if "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, from a "\ud800" escape in JSON
        return False
    return True


def check_players(game: Game, players: Any) -> list[str]:
    """Player names, stripped. Raises InputError for a bad list or count."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InputError("players must be a list of names")
    if any(not _is_text(p) or _CONTROL.search(p) for p in players):
        raise InputError("player names are text without control characters")
    names = [" ".join(p.split()) for p in players]
    if any(not n for n in names):
        raise InputError("every player needs a name")
    if any(len(n) > MAX_PLAYER_NAME for n in names):
        raise InputError(f"player names are at most {MAX_PLAYER_NAME} characters")
    if len({n.casefold() for n in names}) != len(names):
        raise InputError("two players have the same name")
    if not game.min_players <= len(names) <= game.max_players:
        span = f"{game.min_players} to {game.max_players}" if game.min_players != game.max_players else str(game.min_players)
        raise InputError(f"{game.title} is for {span} players, not {len(names)}")
    return names


def check_pin(pin: Any) -> str:
    """A PIN as given when a table is created. Raises InputError unless 4 to 12 digits."""
    if isinstance(pin, int) and not isinstance(pin, bool):
        pin = str(pin)
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit() or not 4 <= len(pin) <= 12:
        raise InputError("the table PIN is 4 to 12 digits")
    return pin


def check_event(body: Any, players: Sequence[str], game: Game | None = None) -> dict[str, Any]:
    """The game event in an action request, without the service's own keys.

    Raises InputError when it is not an event at all, or has a field the game's
    vocabulary (`game.events`) does not give its type; RuleError when the game
    has no such action (the engine judges the rest).
    """
    if not isinstance(body, dict):
        raise InputError("an action is a JSON object like {\"type\": \"done\", \"player\": 0}")
    event = {k: v for k, v in body.items() if k not in SERVICE_KEYS}
    kind = event.get("type")
    if not isinstance(kind, str) or not kind or len(kind) > MAX_TYPE_LENGTH or not _is_text(kind):
        raise InputError("an action needs a \"type\", such as \"done\"")
    if len(event) > MAX_EVENT_KEYS:
        raise InputError(f"an action has at most {MAX_EVENT_KEYS} fields")
    if kind == TIMER_CANCELLED:
        raise InputError("the countdown is cancelled with the timer's cancel command")
    vocabulary = getattr(game, "events", None)
    if vocabulary is not None:
        if kind not in vocabulary:
            raise RuleError(f"{game.title} has no {kind!r} action (it has {', '.join(vocabulary)})")
        unknown = sorted(set(event) - {"type", BY} - set(vocabulary[kind]))
        if unknown:
            raise InputError(f"{unknown[0]}: the {kind} action has no such field")
    for key in ("player", BY):
        if key in event:
            player = event[key]
            if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < len(players):
                raise InputError(f"\"{key}\" is a player's number, 0 to {len(players) - 1}")
    return event


def check_action_id(action_id: Any) -> str | None:
    if action_id is None:
        return None
    if not isinstance(action_id, str) or not action_id or len(action_id) > MAX_ACTION_ID or not _is_text(action_id):
        raise InputError(f"action_id is a string of 1 to {MAX_ACTION_ID} characters")
    return action_id


def check_expected_version(version: Any) -> int | None:
    if version is None:
        return None
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InputError("expected_version is the table's version number")
    return version


def _apply(game: Game, state: Any, event: dict[str, Any]) -> Any:
    """The engine's apply, with every way it can refuse turned into RuleError for the players.

    The service's own event (a cancelled countdown) leaves the state as it is; who tapped
    (`by`) is the service's to keep, not the engine's to see.
    """
    if event.get("type") == TIMER_CANCELLED:
        return state
    if BY in event:
        event = {k: v for k, v in event.items() if k != BY}
    try:
        return game.apply(state, event)
    except RuleError:
        raise
    except KeyError as exc:
        raise RuleError(f"the {event['type']} action needs {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise RuleError(f"that {event['type']} action cannot be played: {exc}") from None


@dataclass
class _Fold:
    """What a table's log folds to.

    `timers[i]` is the countdown as it stood just before event i (what was left
    of it then), so that taking the event back can give the countdown back too.
    """

    states: list[Any]  # states[i]: after the first i effective events
    events: list[dict[str, Any]]
    event_ms: list[int]
    undone: list[tuple[dict[str, Any], int, TimerRecord | None]] = field(default_factory=list)  # the redo stack
    timers: list[TimerRecord | None] = field(default_factory=list)

    @property
    def state(self) -> Any:
        return self.states[-1]

    def pushed(self, state: Any, event: dict[str, Any], timer: TimerRecord | None, undone: list | None = None) -> "_Fold":
        """This fold with one more event (its time is filled in at the commit)."""
        return _Fold(self.states + [state], self.events + [event], self.event_ms + [0],
                     self.undone if undone is None else undone, self.timers + [timer])


class Table:
    """One game at one table. Use it through TableService, which holds its lock."""

    def __init__(self, record: TableRecord, game: Game, clock: Clock):
        self.record = record
        self.id = record.id
        self.game = game
        self.players = list(record.players)
        self.options = dict(record.options)
        self.clock = clock
        self.lock = threading.RLock()  # serialises changes
        self._cond = threading.Condition()  # wakes the streams
        self._closed = False
        self.fold = _Fold([game.new_state(self.players, self.options)], [], [])
        self.countdown = Countdown()
        self.version = 0
        self.action_ids: dict[str, int] = {}
        self.finished_ms = record.finished_ms
        self.last_change: dict[str, Any] | None = None
        self.replay_problems: list[str] = []
        self._published: tuple[int, str] = (0, "")  # (version, serialised game part), swapped as one
        self._known_pin: bytes | None = None  # _memo of the PIN once it was given right
        self._watchers: list[Callable[[], None]] = []
        self._scores_cache: tuple[int, list] | None = None

    # -- reading --------------------------------------------------------------

    @property
    def state(self) -> Any:
        return self.fold.state

    @property
    def finished(self) -> bool:
        return bool(self.game.finished(self.state))

    def check_pin(self, pin: Any) -> bool:
        """True if `pin` is this table's PIN.

        The first right PIN is checked against the slow stored form; after that
        the service knows it, and every check is fast.
        """
        if not isinstance(pin, str) or len(pin) > 64:
            return False
        known = self._known_pin
        if known is not None:
            return hmac.compare_digest(_memo(pin), known)
        if not pins.verify(pin, self.record.pin_salt, self.record.pin_hash):
            return False
        self._known_pin = _memo(pin)
        return True

    def timer_json(self) -> dict[str, Any]:
        return self.countdown.to_json(self.clock.monotonic(), self.clock.time())

    def published(self) -> tuple[int, str]:
        """(version, the table as phones see it, serialised): the GET answer and every stream message.

        The version and the body always belong together, even while a change
        is being made: the pair is replaced in one assignment.
        """
        version, body = self._published
        timer = self.countdown.to_json(self.clock.monotonic(), self.clock.time())
        head = json.dumps({"server_time_ms": timer["server_time_ms"], "timer": timer}, separators=(",", ":"))
        # The game part is serialised once per version; only the clock part is fresh.
        return version, head[:-1] + "," + body

    def view_json(self) -> str:
        return self.published()[1]

    @property
    def published_version(self) -> int:
        return self._published[0]

    def view(self) -> dict[str, Any]:
        return json.loads(self.view_json())

    def _publish(self) -> None:
        fold = self.fold
        body = {
            "id": self.id,
            "game": self.game.id,
            "title": self.game.title,
            "players": self.players,
            "options": self.options,
            "version": self.version,
            "state": self.game.to_json(fold.state),
            "actions": self.game.actions(fold.state),
            "finished": self.finished,
            "can_undo": bool(fold.events),
            "can_redo": bool(fold.undone),
            "undo_event": fold.events[-1] if fold.events else None,
            "redo_event": fold.undone[-1][0] if fold.undone else None,
            # The same two events as the game says them ("Ann marked Cy's grid wrong"), if it does.
            "undo_text": game_sentence(self.game, fold.events[-1], self.players) if fold.events else None,
            "redo_text": game_sentence(self.game, fold.undone[-1][0], self.players) if fold.undone else None,
            "created_ms": self.record.created_ms,
            "finished_ms": self.finished_ms,
            "last_change": self.last_change,
        }
        self._published = (self.version, json.dumps(body, separators=(",", ":"))[1:])

    # -- waiting --------------------------------------------------------------

    def wait_for_change(self, seen: int, timeout: float) -> bool:
        """Block until the version is not `seen` (True) or `timeout` seconds pass (False)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._published[0] != seen or self._closed, timeout)

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` after every change and when the table closes; returns what stops it.

        It runs on the thread that made the change, with the table locked: it
        must only hand the news on (an event loop's call_soon_threadsafe).
        """
        with self._cond:
            self._watchers = self._watchers + [callback]

        def stop() -> None:
            with self._cond:
                self._watchers = [w for w in self._watchers if w is not callback]
        return stop

    def _notify(self) -> None:
        with self._cond:
            self._cond.notify_all()
            watchers = self._watchers
        for callback in watchers:
            try:
                callback()
            except Exception:  # a watcher's failure must never undo a committed change
                log.exception("table %s: a watcher failed", self.id)

    def close(self) -> None:
        self._closed = True
        self._notify()

    @property
    def closed(self) -> bool:
        return self._closed

    def replay(self, entries: Iterable[LogEntry]) -> TimerRecord | None:
        """Fold logged entries onto this table, after what it holds; returns the last countdown logged.

        Used at start-up and by the club server, which folds the entries a
        table ships to it. An entry the engine refuses (a changed engine under
        a stored game) is noted in `replay_problems` and skipped.
        """
        fold = self.fold
        record: TimerRecord | None = None
        for entry in entries:
            if entry.action_id is not None:
                self.action_ids[entry.action_id] = entry.seq
            try:
                if entry.kind == "event":
                    fold.states.append(_apply(self.game, fold.state, entry.body))
                    fold.events.append(entry.body)
                    fold.event_ms.append(entry.created_ms)
                    fold.timers.append(_record_at(record, entry.created_ms))
                    fold.undone.clear()
                elif entry.kind == "undo" and fold.events:
                    fold.undone.append((fold.events.pop(), fold.event_ms.pop(), fold.timers.pop()))
                    fold.states.pop()
                elif entry.kind == "redo" and fold.undone:
                    event, ms, _ = fold.undone.pop()
                    fold.states.append(_apply(self.game, fold.state, event))
                    fold.events.append(event)
                    fold.event_ms.append(ms)
                    fold.timers.append(_record_at(record, entry.created_ms))
                elif entry.kind == "timer":
                    record = TimerRecord.from_json(entry.body)
            except RuleError as exc:
                problem = f"entry {entry.seq} ({entry.kind}) no longer replays: {exc}"
                self.replay_problems.append(problem)
                log.warning("table %s: %s", self.id, problem)
            self.version = entry.seq
            self.last_change = _change(entry)
        return record

    # -- history --------------------------------------------------------------

    def score_steps(self) -> list[tuple[int, list[float]]]:
        """(time in ms, scores) at the start and whenever the scores changed, over the effective events.

        Scores are read from the engine's JSON (`state.scores`, a number per
        player); a game without them has no steps.
        """
        with self.lock:
            if self._scores_cache and self._scores_cache[0] == self.version:
                return self._scores_cache[1]
            fold = self.fold
            steps: list[tuple[int, list[float]]] = []
            first_ms = fold.event_ms[0] if fold.event_ms else self.record.created_ms
            for i, state in enumerate(fold.states):
                scores = scores_of(self.game.to_json(state), len(self.players))
                if scores is None:
                    break
                at = first_ms if i == 0 else fold.event_ms[i - 1]
                if not steps or steps[-1][1] != scores:
                    steps.append((at, scores))
            self._scores_cache = (self.version, steps)
            return steps


def game_sentence(game: Game, event: dict[str, Any], players: Sequence[str]) -> str | None:
    """An event as the game says it (companion.games.base.DescribedGame), or None if it does not.

    The service's own `timer-cancelled` always has a sentence.
    """
    describe = getattr(game, "describe", None)
    text = describe(event, list(players)) if describe is not None else None
    if not text and event.get("type") == TIMER_CANCELLED:
        return "The countdown was cancelled"
    return text or None


def describe_event(game: Game, event: dict[str, Any], players: Sequence[str]) -> str:
    """An event as a sentence for the players, with who did it to whom right.

    The game's own sentence when it has one; otherwise a plain one from the
    event's type, its player and `by`, the player whose phone tapped.
    """
    text = game_sentence(game, event, players)
    if text:
        return text

    def name(key: str) -> str | None:
        value = event.get(key)
        return players[value] if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(players) else None

    by, player = name(BY), name("player")
    words = str(event.get("type", "")).replace("-", " ")
    text = f"{player}: {words}" if player else words[:1].upper() + words[1:]
    return text + (f" (tapped by {by})" if by and by != player else "")


def _record_at(record: TimerRecord | None, at_ms: int) -> TimerRecord | None:
    """A logged countdown as it stood at wall-clock `at_ms`: a running one with what was left then."""
    if record is None or record.status != "running" or record.deadline_wall_ms is None:
        return record
    left = min(record.remaining_ms, max(0, record.deadline_wall_ms - at_ms))
    return TimerRecord("running", record.key, record.duration_ms, left, None)


def _change(entry: LogEntry) -> dict[str, Any]:
    """What the last log entry did, for the phones ("last_change")."""
    change: dict[str, Any] = {"kind": entry.kind, "at_ms": entry.created_ms}
    if entry.kind == "event":
        change["event"] = entry.body
    elif entry.kind == "timer":
        change["status"] = entry.body.get("status")
    return change


def scores_of(state_json: dict[str, Any], players: int) -> list[float] | None:
    """The per-player scores in an engine's JSON, if it has them.

    Two shapes are understood: a top-level ``scores`` list, or a ``players``
    list of objects each with a ``score``. A game with neither has no scores.
    """
    if not isinstance(state_json, dict):
        return None
    scores = state_json.get("scores")
    if scores is None and isinstance(state_json.get("players"), list):
        scores = [p.get("score") if isinstance(p, dict) else None for p in state_json["players"]]
    if (isinstance(scores, list) and len(scores) == players
            and all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores)):
        return list(scores)
    return None


def winners_of(state_json: dict[str, Any], players: int) -> list[int]:
    """Winning players' indices: the engine's `winners` (or `winner`), else the highest scores."""
    if isinstance(state_json, dict):
        for key in ("winners", "winner"):
            value = state_json.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players:
                return [value]
            if isinstance(value, list) and all(isinstance(v, int) and 0 <= v < players for v in value):
                return list(value)
    scores = scores_of(state_json, players)
    if not scores:
        return []
    best = max(scores)
    return [i for i, s in enumerate(scores) if s == best]


class TableService:
    """Every table of this companion, kept in step with the store, the clock and the devices."""

    def __init__(
        self,
        store: EventStore,
        clock: Clock | None = None,
        outputs: Iterable[TimerOutput] = (),
        default_timer_seconds: float = 60.0,
        game_lookup: Callable[[str], Game] = get_game,
        game_ids: Iterable[str] | None = None,
    ):
        """Load every table in `store` and resume its countdown. Tables whose game is not installed are skipped.

        `game_ids` are the games the API offers for new tables (default: every
        installed engine); `game_lookup` finds an engine by id.
        """
        self.store = store
        self.game_ids = list(game_ids) if game_ids is not None else available_games()
        self.clock = clock or SystemClock()
        self.outputs = list(outputs)
        self.default_timer_seconds = default_timer_seconds
        self.game_lookup = game_lookup
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._tick = threading.Condition()
        self._stopping = False
        self.active_id: str | None = None
        self.unavailable: dict[str, str] = {}  # table id -> why it could not be loaded
        # Called (with the table) after every committed change and new table: the club outbox's wake-up.
        # It runs with the table locked and must only hand the news on.
        self.on_change: Callable[[Table], None] | None = None
        for record in store.tables():
            try:
                game = game_lookup(record.game)
            except (KeyError, ImportError) as exc:
                self.unavailable[record.id] = f"game {record.game!r} is not installed ({exc})"
                log.warning("table %s not loaded: %s", record.id, self.unavailable[record.id])
                continue
            table = Table(record, game, self.clock)
            self._replay(table, store.entries(record.id))
            self._tables[record.id] = table
            if self.active_id is None or not table.finished:
                self.active_id = record.id
        self._pin_upgrade: threading.Thread | None = None
        if any(pins.is_legacy(t.record.pin_hash) for t in self._tables.values()):
            # scrypt is slow on a Pi: the service starts at once and wraps the old hashes meanwhile.
            self._pin_upgrade = threading.Thread(target=self.upgrade_pins, name="companion-pin-upgrade", daemon=True)
            self._pin_upgrade.start()

    def upgrade_pins(self) -> int:
        """Wrap every table's PIN hash of the older, fast form in scrypt; returns how many were upgraded.

        Needs no PIN (see companion.pins). A table keeps answering its PIN
        throughout. A failure (a full disk) is logged and tried again at the next start.
        """
        upgraded = 0
        for table in list(self._tables.values()):
            record = table.record
            if self._stopping:
                break
            if not pins.is_legacy(record.pin_hash):
                continue
            stored = pins.upgrade(record.pin_hash, record.pin_salt)
            try:
                self.store.set_pin_hash(table.id, record.pin_hash, stored)
            except Exception as exc:
                log.warning("table %s: PIN hash not upgraded yet (%s)", table.id, exc)
                continue
            table.record = replace(record, pin_hash=stored)
            upgraded += 1
        if upgraded:
            log.info("%d table PIN%s now stored with scrypt", upgraded, "s" if upgraded != 1 else "")
        return upgraded

    # -- tables ---------------------------------------------------------------

    def create(self, game_id: str, players: Any, options: Any = None, pin: Any = None) -> tuple[Table, str]:
        """A new table, written to the store. Returns the table and its PIN (made up if not given).

        Raises InputError for an unknown game, bad players, options or PIN
        (the engine's OptionError message is passed on).
        """
        if not isinstance(game_id, str):
            raise InputError("game must be a game id such as \"pivit-tiles\"")
        try:
            game = self.game_lookup(game_id)
        except (KeyError, ImportError):
            raise InputError(f"unknown game {game_id!r}") from None
        names = check_players(game, players)
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise InputError("options must be a JSON object")
        options = dict(options)
        # The issue lists the PIN among the options; it is the service's, never the engine's.
        option_pin = options.pop("pin", None)
        if pin is None:
            pin = option_pin
        pin = check_pin(pin) if pin not in (None, "") else f"{secrets.randbelow(10_000):04d}"
        unknown = sorted(set(options) - set(game.default_options()))
        if unknown:
            raise InputError(f"unknown option {unknown[0]!r} for {game.title}")
        merged = {**game.default_options(), **options}
        if "seed" in merged and options.get("seed") is None:
            # Randomness comes only from options["seed"] (the engine contract): a fresh one per
            # table, kept with the table's options so every replay deals the same game.
            merged["seed"] = secrets.randbelow(2**31)
        try:
            game.new_state(names, merged)
        except (OptionError, ValueError, TypeError) as exc:
            raise InputError(str(exc)) from None
        salt = pins.new_salt()
        pin_hash = pins.hash_pin(pin, salt)
        now_ms = int(self.clock.time() * 1000)
        with self._lock:
            for _ in range(20):
                table_id = "".join(secrets.choice(ID_ALPHABET) for _ in range(6))
                if table_id not in self._tables and table_id not in self.unavailable:
                    break
            record = TableRecord(table_id, game.id, names, merged, salt, pin_hash, now_ms)
            self.store.create_table(record)
            table = Table(record, game, self.clock)
            table._known_pin = _memo(pin)
            with table.lock:
                table.countdown = self._reconciled(table, Countdown(), table.state, "create")
                if table.countdown.status != "idle":
                    # A game whose rules want a countdown from the start: log it like any other.
                    self._commit(table, [NewEntry("timer", self._timer_body(table.countdown))],
                                 table.fold, table.countdown)
                table._publish()
            self._tables[table_id] = table
            self.active_id = table_id
        self._changed(table)
        log.info("table %s created: %s for %s", table_id, game.id, ", ".join(names))  # never the PIN
        return table, pin

    def games(self) -> list[Game]:
        """The engines new tables may play, in order."""
        return [self.game_lookup(game_id) for game_id in self.game_ids]

    def get(self, table_id: str) -> Table:
        """The table. Raises TableNotFound."""
        try:
            return self._tables[table_id]
        except KeyError:
            raise TableNotFound(f"no table {table_id!r}") from None

    def tables(self) -> list[Table]:
        """Every loaded table, newest first."""
        return sorted(self._tables.values(), key=lambda t: (-t.record.created_ms, t.id))

    # -- changes --------------------------------------------------------------

    def act(self, table_id: str, body: Any, action_id: Any = None, expected_version: Any = None) -> tuple[Table, bool]:
        """Apply one game event. Returns (table, True if this action_id was applied before).

        Raises TableNotFound, InputError (not an event), VersionConflict, and
        RuleError when the rules forbid it.
        """
        table = self.get(table_id)
        action_id = check_action_id(action_id)
        expected_version = check_expected_version(expected_version)
        event = check_event(body, table.players, table.game)
        with table.lock:
            if action_id is not None and action_id in table.action_ids:
                return table, True
            self._check_version(table, expected_version)
            state = _apply(table.game, table.state, event)
            fold = table.fold.pushed(state, event, self._timer_record(table.countdown), undone=[])
            countdown = self._reconciled(table, table.countdown, state, "event", event)
            entries = [NewEntry("event", event, action_id)]
            entries += self._timer_entries(table.countdown, countdown)
            self._commit(table, entries, fold, countdown)
        self._after_change(table, chirp=event["type"])
        return table, False

    def undo(self, table_id: str, action_id: Any = None, expected_version: Any = None) -> tuple[Table, bool]:
        """Take back the last event (replay without it). Raises TableNotFound, VersionConflict, NothingToUndo."""
        return self._undo_redo(table_id, "undo", action_id, expected_version)

    def redo(self, table_id: str, action_id: Any = None, expected_version: Any = None) -> tuple[Table, bool]:
        """Put back the last undone event. Raises TableNotFound, VersionConflict, NothingToUndo."""
        return self._undo_redo(table_id, "redo", action_id, expected_version)

    def _undo_redo(self, table_id: str, kind: str, action_id: Any, expected_version: Any) -> tuple[Table, bool]:
        table = self.get(table_id)
        action_id = check_action_id(action_id)
        expected_version = check_expected_version(expected_version)
        with table.lock:
            if action_id is not None and action_id in table.action_ids:
                return table, True
            self._check_version(table, expected_version)
            old = table.fold
            if kind == "undo":
                if not old.events:
                    raise NothingToUndo("nothing to undo")
                event, before = old.events[-1], old.timers[-1]
                fold = _Fold(old.states[:-1], old.events[:-1], old.event_ms[:-1],
                             old.undone + [(event, old.event_ms[-1], before)], old.timers[:-1])
                countdown = self._reconciled(table, table.countdown, fold.state, kind, before=before)
            else:
                if not old.undone:
                    raise NothingToUndo("nothing to redo")
                event = old.undone[-1][0]
                # Deterministic engine: the same event on the same state cannot fail now.
                state = _apply(table.game, old.state, event)
                fold = old.pushed(state, event, self._timer_record(table.countdown), undone=old.undone[:-1])
                countdown = self._reconciled(table, table.countdown, fold.state, kind, event)
            entries = [NewEntry(kind, {}, action_id)] + self._timer_entries(table.countdown, countdown)
            self._commit(table, entries, fold, countdown)
        self._after_change(table, chirp=kind)
        return table, False

    def timer(self, table_id: str, command: Any, seconds: Any = None, action_id: Any = None,
              expected_version: Any = None) -> tuple[Table, bool]:
        """Start, pause, resume or cancel the table's countdown by hand.

        `start` runs the countdown the rules ask for now, if any (so its expiry
        counts in the game), else a plain countdown of `seconds` (default: the
        configured length). Raises TableNotFound, InputError, VersionConflict
        and TimerError ("the timer is not running").
        """
        table = self.get(table_id)
        action_id = check_action_id(action_id)
        expected_version = check_expected_version(expected_version)
        if command not in ("start", "pause", "resume", "cancel"):
            raise InputError("command is one of start, pause, resume, cancel")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not 0 < seconds <= MAX_SECONDS):  # NaN fails this too
            raise InputError(f"seconds: a number of seconds, more than 0 and at most {int(MAX_SECONDS)}")
        with table.lock:
            if action_id is not None and action_id in table.action_ids:
                return table, True
            self._check_version(table, expected_version)
            now = self.clock.monotonic()
            old = table.countdown
            if command == "start":
                request = self._timer_request(table, table.state)
                if request is not None:
                    countdown = old.start(seconds if seconds is not None else request[1], now, request[0])
                else:
                    countdown = old.start(seconds if seconds is not None else self.default_timer_seconds, now)
            elif command == "pause":
                countdown = old.pause(now)
            elif command == "resume":
                countdown = old.resume(now)
            else:
                countdown = old.cancel()
            request = self._timer_request(table, table.state)
            if command == "cancel" and old.status in ("running", "paused") and request and request[0] == old.key:
                # The rules asked for this countdown: cancelling it is a change to the game, logged
                # as an event so that Undo gives the countdown back with the time it had left.
                event = {"type": TIMER_CANCELLED}
                fold = table.fold.pushed(table.state, event, self._timer_record(old), undone=[])
                entries = [NewEntry("event", event, action_id), NewEntry("timer", self._timer_body(countdown))]
                self._commit(table, entries, fold, countdown)
            else:
                entries = [NewEntry("timer", self._timer_body(countdown), action_id)]
                self._commit(table, entries, table.fold, countdown)
        self._after_change(table, timer_changed=True)
        return table, False

    def fire_due(self) -> list[str]:
        """Expire every countdown whose deadline has passed; returns the tables' ids.

        Each expiry is written with its `timer-expired` event in one
        transaction, so it is applied exactly once even across a crash. The
        event is applied only if the rules still ask for that countdown; a
        countdown started by hand just sounds the buzzer.
        """
        fired = []
        now = self.clock.monotonic()
        for table in list(self._tables.values()):
            if not table.countdown.is_due(now):
                continue
            with table.lock:
                if not table.countdown.is_due(self.clock.monotonic()) or table.closed:
                    continue
                before = self._timer_record(table.countdown)
                expired = table.countdown.expire()
                entries = [NewEntry("timer", self._timer_body(expired))]
                fold = table.fold
                request = self._timer_request(table, table.state)
                if expired.key is not None and request is not None and request[0] == expired.key:
                    event = {"type": "timer-expired"}
                    try:
                        state = _apply(table.game, table.state, event)
                    except RuleError as exc:
                        log.warning("table %s: timer-expired refused by the rules: %s", table.id, exc)
                    else:
                        fold = fold.pushed(state, event, before, undone=[])
                        entries.append(NewEntry("event", event))
                        after = self._reconciled(table, expired, state, "event", event)
                        entries += self._timer_entries(expired, after)
                        expired = after
                try:
                    self._commit(table, entries, fold, expired)
                except Exception:
                    log.exception("table %s: could not record the expiry; will retry", table.id)
                    continue
            fired.append(table.id)
            self.active_id = table.id
            self._outputs("timer_expired")
            self._after_change(table, timer_changed=True)
        return fired

    # -- the countdown and the rules -----------------------------------------

    def _timer_request(self, table: Table, state: Any) -> tuple[str, float] | None:
        request_fn = getattr(table.game, "timer_request", None)
        if request_fn is None:
            return None
        request = request_fn(state)
        if request is None:
            return None
        key, seconds = request
        return str(key), float(seconds)

    def _reconciled(self, table: Table, countdown: Countdown, state: Any, cause: str,
                    event: dict[str, Any] | None = None, before: TimerRecord | None = None) -> Countdown:
        """The countdown after a change of state: follow what the rules ask for.

        A new request starts a countdown; a request that went away cancels the
        countdown it started (hand-started ones are left alone), or shows it
        expired if the change was a `timer-expired` (typed in, or redone).
        Undo gives back the countdown the undone event found (`before`): a
        verify that ended the one-minute race with 3 s left, taken back, leaves
        3 s, not a fresh minute; a cancelled countdown, its time left. Undoing
        the expiry of a request that is back gives it a fresh countdown.
        A redone cancel cancels again.
        """
        request = self._timer_request(table, state)
        now = self.clock.monotonic()
        if request is None:
            if countdown.key is not None and countdown.status in ("running", "paused"):
                if event is not None and event.get("type") == "timer-expired":
                    return countdown.expire()
                return Countdown()
            if countdown.status == "expired" and cause == "event" and (event or {}).get("type") != "timer-expired":
                # The table has moved on since time ran out: stop showing "time's up".
                return Countdown()
            return countdown
        key, seconds = request
        live = countdown.key == key and countdown.status in ("running", "paused")
        if cause == "redo" and (event or {}).get("type") == TIMER_CANCELLED:
            return countdown.cancel() if live else countdown
        if (cause == "undo" and not live and before is not None and before.key == key
                and before.status in ("running", "paused") and before.remaining_ms > 0):
            if before.status == "paused":
                return Countdown("paused", key, before.duration_ms, before.remaining_ms, None)
            return Countdown("running", key, before.duration_ms, 0, now + before.remaining_ms / 1000)
        if countdown.key != key or (cause in ("undo", "redo") and countdown.status == "expired"):
            try:
                return countdown.start(seconds, now, key)
            except TimerError:
                log.error("table %s: the rules asked for a %r second countdown", table.id, seconds)
        return countdown

    def _timer_record(self, countdown: Countdown) -> TimerRecord:
        """The countdown as it stands now, what is left of it frozen (kept with each event)."""
        return countdown.to_record(self.clock.monotonic(), self.clock.time())

    def _timer_body(self, countdown: Countdown) -> dict[str, Any]:
        return countdown.to_record(self.clock.monotonic(), self.clock.time()).to_json()

    def _timer_entries(self, old: Countdown, new: Countdown) -> list[NewEntry]:
        return [] if new == old else [NewEntry("timer", self._timer_body(new))]

    # -- bookkeeping ----------------------------------------------------------

    def _check_version(self, table: Table, expected: int | None) -> None:
        if expected is not None and expected != table.version:
            raise VersionConflict(expected, table.version)

    def _commit(self, table: Table, entries: list[NewEntry], fold: _Fold, countdown: Countdown) -> None:
        """Write `entries`, then make `fold` and `countdown` current and wake the watchers.

        Nothing changes in memory unless the store committed.
        """
        now_ms = int(self.clock.time() * 1000)
        finished = bool(table.game.finished(fold.state))
        was_finished = table.finished_ms is not None
        finished_ms: Any = table.finished_ms
        if finished and not was_finished:
            finished_ms = now_ms
        elif not finished and was_finished:
            finished_ms = None
        kwargs = {"finished_ms": finished_ms} if finished_ms != table.finished_ms else {}
        written = self.store.append(table.id, table.version, entries, now_ms, **kwargs)
        # Events just applied carry a placeholder time; give them the commit's.
        fold.event_ms[:] = [ms or now_ms for ms in fold.event_ms]
        table.fold = fold
        table.countdown = countdown
        table.version = written[-1].seq
        table.finished_ms = finished_ms
        for entry in written:
            if entry.action_id is not None:
                table.action_ids[entry.action_id] = entry.seq
        table.last_change = _change(written[-1])
        table._publish()
        table._notify()
        self._wake_ticker()
        self._changed(table)

    def _changed(self, table: Table) -> None:
        if self.on_change is not None:
            try:
                self.on_change(table)
            except Exception:  # shipping to the club must never undo a committed change
                log.exception("table %s: the change hook failed", table.id)

    def _replay(self, table: Table, entries: list[LogEntry]) -> None:
        """Fold a table's log at start-up; a running countdown resumes from its wall-clock deadline."""
        record = table.replay(entries)
        if record is not None:
            table.countdown = Countdown.from_record(record, self.clock.monotonic(), self.clock.time())
        table._publish()

    # -- devices --------------------------------------------------------------

    def _after_change(self, table: Table, chirp: str | None = None, timer_changed: bool = False) -> None:
        self.active_id = table.id
        if chirp:
            self._outputs("chirp", chirp)
        snapshot = table.countdown.snapshot(self.clock.monotonic())
        if timer_changed or chirp:
            self._outputs("timer_changed", snapshot)

    def _outputs(self, method: str, *args: Any) -> None:
        for output in self.outputs:
            try:
                getattr(output, method)(*args)
            except Exception:  # a broken display must never break the table
                log.exception("timer output %s failed in %s", getattr(output, "name", output), method)

    def activate(self, table_id: str) -> Table:
        """Make this the active table: the one the physical timer shows and its buttons act on.

        Any change makes a table active; this does it without one (a virtual
        button pressed on the table's page). The outputs are told the table's
        countdown at once. Raises TableNotFound.
        """
        table = self.get(table_id)
        if self.active_id != table.id:
            self.active_id = table.id
            self._outputs("timer_changed", table.countdown.snapshot(self.clock.monotonic()))
        return table

    def on_button(self, name: str, kind: str) -> None:
        """A physical button at the table, acting on the active table. Never raises.

        - "timer": press starts the countdown (again, once it has run out),
          pauses it while it runs and resumes it while paused; hold cancels it.
        - "<type>-<n>" (a player's button, "done-<n>" on the wiring diagram):
          {"type": type, "player": n}, so "done-1" is player 1's `done`, on
          press or hold (a player who leans on the button has still said
          "done"); the action chirps like every action.
        - "undo", "redo": as on the page; any other name sends {"type": name};
          on press only.

        Called from a device's thread: a refused action (the rules, the timer,
        nothing to undo, no active table) or a failure chirps "error" and is
        logged; nothing is raised to the device.
        """
        table = self._tables.get(self.active_id or "")
        if table is None or kind not in ("press", "hold"):
            log.info("button %s %s: %s", name, kind, "no active table" if table is None else "unknown action")
            self._outputs("chirp", "error")
            return
        kind_, _, number = name.rpartition("-")
        player_button = bool(kind_) and number.isdigit()
        try:
            if name == "timer":
                with table.lock:  # decide and act on the same countdown, whatever the phones do meanwhile
                    status = table.countdown.status
                    command = "cancel" if kind == "hold" else {"running": "pause", "paused": "resume"}.get(status, "start")
                    self.timer(table.id, command)
            elif kind == "hold" and not player_button:
                log.info("button %s held: nothing to do", name)
            elif name in ("undo", "redo"):
                getattr(self, name)(table.id)
            elif player_button:
                self.act(table.id, {"type": kind_, "player": int(number)})
            else:
                self.act(table.id, {"type": name})
        except (RuleError, TimerError, InputError, NothingToUndo, VersionConflict, StoreConflict) as exc:
            log.info("button %s %s refused: %s", name, kind, exc)
            self._outputs("chirp", "error")
        except Exception:  # the event log failing, say: the device thread must live on
            log.exception("button %s %s failed", name, kind)
            self._outputs("chirp", "error")

    def health(self) -> dict[str, Any]:
        return {
            "tables": len(self._tables),
            "unavailable_tables": self.unavailable,
            "active_table": self.active_id,
            "ticker": bool(self._ticker and self._ticker.is_alive()),
        }

    # -- the ticker -----------------------------------------------------------

    def next_deadline(self) -> float | None:
        """The earliest monotonic deadline of any running countdown."""
        deadlines = [t.countdown.deadline for t in self._tables.values() if t.countdown.status == "running"]
        return min(deadlines) if deadlines else None

    def start_ticker(self, resync_seconds: float = 5.0) -> None:
        """Fire expiries on time from a background thread (the service; tests call fire_due)."""
        if self._ticker is not None:
            return
        self._ticker = threading.Thread(target=self._tick_loop, args=(resync_seconds,), name="companion-timer", daemon=True)
        self._ticker.start()

    def _wake_ticker(self) -> None:
        with self._tick:
            self._tick.notify_all()

    def _tick_loop(self, resync_seconds: float) -> None:
        last_resync = self.clock.monotonic()
        while not self._stopping:
            try:
                self.fire_due()
            except Exception:
                log.exception("timer ticker")
            now = self.clock.monotonic()
            active = self._tables.get(self.active_id or "")
            if active is not None and active.countdown.status == "running" and now - last_resync >= resync_seconds:
                # Displays that count by themselves drift; tell them the truth now and then.
                self._outputs("timer_changed", active.countdown.snapshot(now))
                last_resync = now
            deadline = self.next_deadline()
            timeout = resync_seconds if deadline is None else min(resync_seconds, max(0.0, deadline - now))
            with self._tick:
                if not self._stopping:
                    self._tick.wait(timeout)

    def stop_streams(self) -> None:
        """Wake every open stream and let it end (the service is shutting down)."""
        for table in list(self._tables.values()):
            table.close()

    def close(self) -> None:
        """Stop the ticker, end every stream and close the store.

        The outputs are left open: whoever opened the devices closes them.
        """
        self._stopping = True
        self._wake_ticker()
        if self._ticker is not None:
            self._ticker.join(timeout=5)
        if self._pin_upgrade is not None:
            self._pin_upgrade.join(timeout=10)
        self.stop_streams()
        self.store.close()
