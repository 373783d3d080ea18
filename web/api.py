"""The JSON API under /api: tables, actions, undo and redo, the timer, health, devices.

Every answer is JSON; every error is ``{"error": "..."}`` with a 4xx status
(the engine's own message when the rules forbid an action). Each route is
declared with its request and answer models (web.contract), which check the
requests and make /api/openapi.json; docs/api.md is the page for people.

The models of this blueprint are below, before the views. Bodies that
depend on the games installed (a new table's options, a game's actions) are
built per app from the service's games (`game_models`).
"""
from __future__ import annotations

import json
from typing import Any, Annotated, Literal, NotRequired, Union, get_args, get_origin

from flask import Blueprint, Flask, Response, current_app, jsonify, request, url_for
from pydantic import AfterValidator, BaseModel, Field, RootModel, create_model

import companion
from companion.errors import InputError
from companion.tables import MAX_ACTION_ID, MAX_PLAYER_NAME
from companion.timer import MAX_SECONDS
from web import get_service
from web.contract import (MAX_ITEMS, PIN_HEADERS, Answer, Body, Error, Name, Reply, Text, Whole, errors, operation,
                          pin_errors, validate)
from web.security import require_pin

bp = Blueprint("api", __name__, url_prefix="/api")

# -- requests ---------------------------------------------------------------------------------

def _pin(value: str) -> str:
    if not (value.isascii() and value.isdigit() and 4 <= len(value) <= 12):
        raise ValueError("the table PIN is 4 to 12 digits")
    return value


Pin = Annotated[str, Field(description="The table PIN: 4 to 12 digits.",
                           json_schema_extra={"pattern": "^[0-9]{4,12}$"}), AfterValidator(_pin)]
ActionId = Text(MAX_ACTION_ID, min_length=1,
                description="Any unique string; a request repeated with the same action_id is applied once.")
Version = Whole(0, 2**53, "Refuse with 409 unless the table is at this version.")
PlayerName = Name(MAX_PLAYER_NAME, "A player's name (spaces are folded; names differ by more than case).")


class PinBody(Body):
    """A request that changes a table: the PIN may come in the body instead of X-Table-Pin."""

    pin: Pin | None = Field(None, description="The table PIN, if not sent in X-Table-Pin.")


class Mutation(PinBody):
    """What every change of a table may carry besides its own fields."""

    action_id: ActionId | None = None
    expected_version: Version | None = None


class TimerCommand(Mutation):
    command: Literal["start", "pause", "resume", "cancel"]
    seconds: Annotated[float, Field(gt=0, le=MAX_SECONDS)] | None = Field(
        None, description="Length for start, in seconds (default: what the rules ask for, else the configured length).")


class DevicePress(PinBody):
    button: Text(40, min_length=1) = Field("timer", examples=["done-0"])
    action: Literal["press", "hold"] = "press"
    device: Literal["pico", "gpio"] | None = Field(None, description="Default: pico for timer, gpio for the others.")


class DeviceFault(PinBody):
    fault: Literal["unplug", "replug", "reboot", "freeze", "thaw", "noise"]


class DevicesQuery(Body):
    model_config = {"strict": False}  # query values are text: "12" is the number 12

    since: Annotated[int, Field(ge=0, le=10**12, description="The `next` of the previous answer.")] | None = None


# A game option's value: what a phone's form sends (numbers, text, true/false, lists of them).
Scalar = Union[bool, int, float, Text(4000), None]
OptionValue = Union[Scalar, Annotated[list[Union[Scalar, Annotated[list[Scalar], Field(max_length=MAX_ITEMS)]]],
                                      Field(max_length=MAX_ITEMS)]]


def _player_count(game) -> Any:
    def check(players: list[str]) -> list[str]:
        if not game.min_players <= len(players) <= game.max_players:
            span = (f"{game.min_players} to {game.max_players}" if game.min_players != game.max_players
                    else str(game.min_players))
            raise ValueError(f"{game.title} is for {span} players, not {len(players)}")
        return players
    return check


def _camel(game_id: str) -> str:
    return "".join(part.title() for part in game_id.replace("_", "-").split("-"))


def _option_type(game, key: str, default: Any) -> Any:
    choices = getattr(game, "option_choices", lambda: {})().get(key)
    if choices:
        # Pivit's hints menu (auto, on, off) also takes true or false, as the engine does.
        return Literal[tuple(choices)] | bool if key == "hints" else Literal[tuple(choices)]
    if isinstance(default, bool) and key != "hints":
        return bool
    return OptionValue


def _event_type(python_type: Any, game) -> Any:
    """A field of the game's vocabulary as a checked type (players by number, bounded text and lists)."""
    if python_type is int:
        return Whole(-(2**31), 2**31)
    if python_type is str:
        return Text(MAX_ITEMS * 4, min_length=1)
    if get_origin(python_type) is list:
        (item,) = get_args(python_type)
        return Annotated[list[_event_type(item, game)], Field(max_length=MAX_ITEMS)]
    return python_type


def _event_model(game, kind: str, fields: dict[str, Any]) -> type[BaseModel]:
    declared: dict[str, Any] = {"type": (Literal[kind], ...)}
    for name, python_type in fields.items():
        optional = get_origin(python_type) is NotRequired
        if optional:
            (python_type,) = get_args(python_type)
        if name == "player":
            checked = Whole(0, game.max_players - 1, "A player's number, from 0.")
        else:
            checked = _event_type(python_type, game)
        declared[name] = (checked | None, None) if optional else (checked, ...)
    # Whose phone tapped (the history says "Ana, for Ben"): any action may carry it.
    declared["by"] = (Annotated[int, Field(ge=0, le=game.max_players - 1,
                                           description="The player whose phone sent the action, from 0.")] | None, None)
    return create_model(f"{_camel(game.id)}{_camel(kind)}", __base__=Mutation,
                        __doc__=f"{game.title}: the {kind} action.", **declared)


class GameModels:
    """The request bodies that depend on the games this service plays."""

    def __init__(self, games: list):
        self.games = {game.id: game for game in games}
        tables = []
        self.events: dict[str, dict[str, type[BaseModel]]] = {}
        for game in games:
            options = create_model(
                f"{_camel(game.id)}Options", __base__=Body, __doc__=f"{game.title}: the table's options (GET /api/games "
                "shows them with their defaults); the game checks their values, and \"pin\", the table PIN.",
                pin=(Pin | None, None),
                **{key: (_option_type(game, key, value) | None, None)
                   for key, value in game.default_options().items() if key != "pin"})
            players = Annotated[list[PlayerName], Field(json_schema_extra={
                "minItems": game.min_players, "maxItems": game.max_players, "uniqueItems": True}),
                AfterValidator(_player_count(game))]
            tables.append(create_model(
                f"New{_camel(game.id)}Table", __base__=Body, __doc__=f"A new table of {game.title}.",
                game=(Literal[game.id], ...), players=(players, ...), options=(options | None, None),
                pin=(Pin | None, Field(None, description="The table PIN (also accepted as options.pin); random if "
                                                         "not given."))))
            self.events[game.id] = {kind: _event_model(game, kind, fields) for kind, fields in game.events.items()}
        union = Union[tuple(tables)] if len(tables) > 1 else tables[0]
        self.new_table = create_model("NewTable", __base__=RootModel[Annotated[union, Field(discriminator="game")]])
        everything = [model for by_kind in self.events.values() for model in by_kind.values()]
        self.action = create_model("Action", __base__=RootModel[Union[tuple(everything)]],
                                   __doc__="An event of the table's game (each game's vocabulary is one of these), "
                                           "with the fields every change may carry.")

    def check_action(self, game_id: str, data: Any) -> dict[str, Any]:
        """The action `data` checked against the table's game vocabulary. Raises InputError naming the field."""
        if not isinstance(data, dict):
            raise InputError("an action is a JSON object like {\"type\": \"done\", \"player\": 0}")
        kind = data.get("type")
        if not isinstance(kind, str):
            raise InputError("type: required, the action's name (such as \"done\")")
        own = self.events.get(game_id, {})
        if kind in own:
            return validate(own[kind], data).model_dump(exclude_unset=True)
        others = [by_kind[kind] for by_kind in self.events.values() if kind in by_kind]
        if not others:
            known = sorted({k for by_kind in self.events.values() for k in by_kind})
            raise InputError(f"type: no game here has a {kind!r} action ({', '.join(known)})")
        # Another game's action: well formed for the API, then refused by this table's game (409).
        return validate(others[0], data).model_dump(exclude_unset=True)


def game_models(app: Flask | None = None) -> GameModels:
    app = app or current_app
    models = app.extensions.get("game_models")
    if models is None:
        models = app.extensions["game_models"] = GameModels(app.config["TABLE_SERVICE"].games())
    return models


# -- answers ----------------------------------------------------------------------------------


class Timer(Answer):
    status: Literal["idle", "running", "paused", "expired"]
    key: str | None = Field(description="What the rules started it for; null when started by hand.")
    duration_ms: int
    remaining_ms: int
    deadline_ms: int | None = Field(description="When it runs out, on the server's wall clock (running only).")
    server_time_ms: int


class Table(Answer):
    """The table now: what GET /api/tables/<id> answers and every stream message carries."""

    server_time_ms: int
    timer: Timer
    id: str
    game: str
    title: str
    players: list[str]
    options: dict[str, Any]
    version: int = Field(description="Number of the last log entry; every change moves it on.")
    state: dict[str, Any] = Field(description="The game's own JSON (its engine's to_json).")
    actions: list[dict[str, Any]] = Field(description="The events the rules allow now.")
    finished: bool
    can_undo: bool
    can_redo: bool
    undo_event: dict[str, Any] | None
    redo_event: dict[str, Any] | None
    undo_text: str | None = Field(description="undo_event as the game says it (\"Ann marked Cy's grid wrong\"), "
                                              "or null when the game has no sentences for it.")
    redo_text: str | None = Field(description="The same for redo_event.")
    created_ms: int
    finished_ms: int | None
    last_change: dict[str, Any] | None
    duplicate: bool = Field(False, description="Present (true) when this action_id was applied before.")


class CreatedTable(Table):
    pin: str = Field(description="The table's PIN, answered once, to the creator.")
    url: str = Field(description="The table's address for phones (the QR code).")


class TableSummary(Answer):
    id: str
    game: str
    title: str
    players: list[str]
    version: int
    finished: bool
    created_ms: int
    finished_ms: int | None


class Tables(Answer):
    tables: list[TableSummary]


class GameInfo(Answer):
    id: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]
    timed: bool


class Games(Answer):
    games: list[GameInfo]


class Health(Answer):
    status: Literal["ok", "error"]
    version: str
    service: dict[str, Any]
    database: dict[str, Any]
    timer: dict[str, Any]
    gpio: dict[str, Any]
    camera: dict[str, Any]
    hardware: dict[str, Any] | None = None
    club: dict[str, Any] | None = Field(None, description=(
        "With a club server: its url, state (ok, offline, refused, starting), entries not yet stored there "
        "(behind) and entries shipped since the start."))


class ClubPlayers(Answer):
    players: list[str]


class Time(Answer):
    server_time_ms: int


class LogEntry(Answer):
    seq: int
    kind: Literal["event", "undo", "redo", "timer"]
    body: dict[str, Any]
    action_id: str | None
    at_ms: int


class Log(Answer):
    id: str
    version: int
    entries: list[LogEntry]


class PinOk(Answer):
    ok: Literal[True]


class DevicePanel(Answer):
    simulated: bool
    status: dict[str, Any]
    view: dict[str, Any] | None
    events: list[dict[str, Any]]
    next: int
    buttons: list[dict[str, Any]]
    faults: list[str]
    active_table: str | None


class Pressed(Answer):
    button: str
    action: str
    device: str
    table: str


class FaultDone(Answer):
    fault: str
    status: dict[str, Any]


TABLE_ERRORS = errors(e404="No such table.")
CHANGE_REPLIES = {
    200: Reply("The table after the change (with \"duplicate\": true if action_id was seen before).", Table),
    409: Reply("A version conflict (the answer has version and expected_version), or the table cannot do that now.",
               Error),
    503: Reply("The event log cannot be written (the storage is full).", Error),
    **pin_errors(),
}


def table_response(table, status: int = 200, duplicate: bool = False, extra: str = "") -> Response:
    """The table as JSON, straight from its serialised form (no re-encoding per request)."""
    body = table.view_json()
    if duplicate:
        extra += '"duplicate":true,'
    if extra:
        body = "{" + extra + body[1:]
    return Response(body, status=status, mimetype="application/json")


def public_url() -> str:
    """The address phones reach this service on (PUBLIC_URL, else the request's own)."""
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def table_url(table_id: str) -> str:
    return public_url() + url_for("pages.table", table_id=table_id)


@operation(bp, "/health", summary="Status of the service, the database, the timer device, GPIO and camera",
           replies={200: Reply("Working.", Health), 503: Reply("The database is not usable (or its storage is full).",
                                                                  Health)})
def health():
    """Public: names no file. `database.storage_full` is true while the disk is too full to write the log."""
    service = get_service()
    database = service.store.health()
    devices_fn = current_app.config.get("DEVICES")
    devices = devices_fn() if devices_fn else {}
    state = service.health()
    detail = f"{state['tables']} table{'s' if state['tables'] != 1 else ''}; timer thread " + (
        "running" if state["ticker"] else "not started")
    body = {
        "status": "ok" if database["ok"] else "error",
        "version": companion.__version__,
        "service": {"ok": True, "detail": detail, **state},
        "database": database,
        "timer": devices.get("timer", {"ok": True, "simulated": True,
                                        "detail": "no timer device: simulated display and buzzer on the table page"}),
        "gpio": devices.get("gpio", {"ok": False, "attached": False, "detail": "no GPIO devices attached"}),
        "camera": current_app.extensions["camera_checks"].status(),
    }
    if "hardware" in devices:
        body["hardware"] = devices["hardware"]
    outbox = current_app.config.get("OUTBOX")
    if outbox is not None:
        body["club"] = outbox.status()
    return jsonify(body), 200 if database["ok"] else 503


@operation(bp, "/club/players", summary="The club's player names, for the new-table form's \"I am ...\" list",
           replies={200: Reply("The names (none without a club, or while it cannot be reached).", ClubPlayers)})
def club_players():
    outbox = current_app.config.get("OUTBOX")
    return jsonify({"players": outbox.players() if outbox is not None else []})


@operation(bp, "/time", summary="The server's clock, for phones to measure their offset", replies={200: Reply("Now.", Time)})
def server_time():
    """The server's wall clock, for phones to measure their offset (and the round trip)."""
    return jsonify({"server_time_ms": int(get_service().clock.time() * 1000)})


@operation(bp, "/games", summary="The games new tables may play, with their player counts and default options",
           replies={200: Reply("Games.", Games)})
def games():
    out = []
    for game in get_service().games():
        out.append({
            "id": game.id, "title": game.title,
            "min_players": game.min_players, "max_players": game.max_players,
            "options": game.default_options(),
            "timed": hasattr(game, "timer_request"),
        })
    return jsonify({"games": out})


@operation(bp, "/tables", summary="Every table, newest first", replies={200: Reply("Tables.", Tables)})
def list_tables():
    service = get_service()
    return jsonify({"tables": [
        {"id": t.id, "game": t.game.id, "title": t.game.title, "players": t.players,
         "version": t.published_version, "finished": t.finished_ms is not None,
         "created_ms": t.record.created_ms, "finished_ms": t.finished_ms}
        for t in service.tables()
    ]})


@operation(bp, "/tables", "POST", summary="Create a table", body=lambda app: game_models(app).new_table,
           replies={201: Reply("Created: the table, plus its PIN and the address for phones; X-Table-Token for "
                               "the creator's phone.", CreatedTable, headers={"Location": "The table's API address.",
                                                                              "X-Table-Token": "The table's token."}),
                    **errors(e403="Cross-site request.", e413="The request body is too large.",
                             e415="The body is not JSON.", e503="The event log cannot be written."),
                    400: Reply("Bad input (the message names the field), or options the game cannot be set up "
                               "with (its own message: a range, an order).", Error)})
def create_table(body):
    """Options are the game's (GET /api/games shows them with their defaults); the game checks their values."""
    new = body.root
    # An option given as null takes its default (Pivit's target: by the number of players).
    options = new.options.model_dump(exclude_none=True) if new.options is not None else None
    table, pin = get_service().create(new.game, new.players, options, new.pin)
    url = table_url(table.id)
    extra = f'"pin":{json.dumps(pin)},"url":{json.dumps(url)},'
    response = table_response(table, status=201, extra=extra)
    response.headers["Location"] = url_for("api.get_table", table_id=table.id)
    return response


@operation(bp, "/tables/<table_id>", summary="The table now: players, version, the game's state, allowed actions, "
           "the timer", replies={200: Reply("The table.", Table), **TABLE_ERRORS})
def get_table(table_id: str):
    return table_response(get_service().get(table_id))


@operation(bp, "/tables/<table_id>/events", summary="The table's whole log: events, undo, redo and timer entries",
           replies={200: Reply("The log.", Log), **TABLE_ERRORS})
def table_events(table_id: str):
    """The whole log, undo, redo and timer entries included."""
    service = get_service()
    table = service.get(table_id)
    entries = service.store.entries(table.id)
    return jsonify({
        "id": table.id, "version": table.published_version,
        "entries": [{"seq": e.seq, "kind": e.kind, "body": e.body, "action_id": e.action_id,
                     "at_ms": e.created_ms} for e in entries],
    })


def _unlocked(table_id: str, body: BaseModel | dict | None):
    """The service, the table, and the PIN's refusal (None when the request may change the table)."""
    service = get_service()
    table = service.get(table_id)
    pin = body.get("pin") if isinstance(body, dict) else getattr(body, "pin", None)
    return service, table, require_pin(table, {"pin": pin} if pin is not None else None)


@operation(bp, "/tables/<table_id>/pin", "POST", summary="Check a PIN before the first tap (wrong ones count like "
           "any other)", body=PinBody, body_required=False, headers=PIN_HEADERS[:1],
           replies={200: Reply("Right PIN: the table's token is in X-Table-Token.", PinOk,
                               headers={"X-Table-Token": "The table's token."}), **pin_errors()})
def check_table_pin(table_id: str, body: PinBody):
    """Is this the PIN? Lets a phone unlock before its first tap (a token does not stand in for it here)."""
    _, _, refused = _unlocked(table_id, body)
    return refused or jsonify({"ok": True})


@operation(bp, "/tables/<table_id>/actions", "POST", body=lambda app: game_models(app).action, check_body=False,
           headers=PIN_HEADERS, summary="Play an event of the table's game",
           replies={**CHANGE_REPLIES, 409: Reply(
               "The rules forbid it now (the engine's message), this table's game has no such action, or a version "
               "conflict (with version and expected_version).", Error)})
def post_action(table_id: str, body: dict):
    """An event of the game's vocabulary, such as pivit-tiles: start-round, trade, done, return-stick, verify,
    timer-expired, next-round, leave. A field the action does not have is refused (400), so nothing unknown is
    ever written to the log."""
    service, table, refused = _unlocked(table_id, body)
    if refused:
        return refused
    event = game_models().check_action(table.game.id, body)
    action_id, expected = event.pop("action_id", None), event.pop("expected_version", None)
    event.pop("pin", None)
    table, duplicate = service.act(table.id, event, action_id, expected)
    return table_response(table, duplicate=duplicate)


def _undo_redo(table_id: str, body: Mutation, kind: str):
    service, table, refused = _unlocked(table_id, body)
    if refused:
        return refused
    table, duplicate = getattr(service, kind)(table.id, body.action_id, body.expected_version)
    return table_response(table, duplicate=duplicate)


@operation(bp, "/tables/<table_id>/undo", "POST", summary="Take back the last event (everyone sees it at once)",
           body=Mutation, body_required=False, headers=PIN_HEADERS,
           replies={**CHANGE_REPLIES, 409: Reply("Nothing to undo, or a version conflict.", Error)})
def undo(table_id: str, body: Mutation):
    return _undo_redo(table_id, body, "undo")


@operation(bp, "/tables/<table_id>/redo", "POST", summary="Put back the last undone event",
           body=Mutation, body_required=False, headers=PIN_HEADERS,
           replies={**CHANGE_REPLIES, 409: Reply("Nothing to redo, or a version conflict.", Error)})
def redo(table_id: str, body: Mutation):
    return _undo_redo(table_id, body, "redo")


@operation(bp, "/tables/<table_id>/timer", "POST", summary="Start, pause, resume or cancel the table's countdown by hand",
           body=TimerCommand, headers=PIN_HEADERS,
           replies={**CHANGE_REPLIES, 409: Reply("The timer cannot do that now (pause when not running...), or a "
                                                 "version conflict.", Error)})
def timer(table_id: str, body: TimerCommand):
    service, table, refused = _unlocked(table_id, body)
    if refused:
        return refused
    table, duplicate = service.timer(table.id, body.command, body.seconds, body.action_id, body.expected_version)
    return table_response(table, duplicate=duplicate)


# -- the timer devices: status line, virtual display and buttons ---------------

NO_DEVICES = {
    "simulated": False,
    "status": {"level": "off", "line": "No timer device: this page shows the countdown",
               "timer": {"state": None, "level": "off", "text": "No timer device"},
               "gpio": {"state": None, "level": "off", "text": "No GPIO"}},
    "view": None, "events": [], "next": 0, "buttons": [], "faults": [],
}


def _hardware():
    """The service's devices (companion.commands.serve.Devices), or None when the app has none."""
    return current_app.config.get("HARDWARE")


def _simulated_hardware():
    """The devices if they are simulated; else None (virtual buttons and faults answer 409)."""
    hardware = _hardware()
    return hardware if hardware is not None and hardware.simulated else None


def _not_simulated() -> Response:
    response = jsonify({"error": "virtual buttons and faults exist only under "
                                 "`companion serve --simulate-hardware`"})
    response.status_code = 409
    return response


@operation(bp, "/devices", summary="The timer devices in one line, and under --simulate-hardware the virtual "
           "display, buzzer and buttons", query=DevicesQuery, replies={200: Reply("The devices.", DevicePanel)})
def devices(query: DevicesQuery):
    """The page polls this while visible (every 250 ms under simulation, else every 3 s); ``?since=`` is the
    previous answer's ``next``, and the answer's ``events`` are the display and buzzer changes since then."""
    hardware = _hardware()
    body = hardware.panel(query.since) if hardware is not None else dict(NO_DEVICES)
    body["active_table"] = get_service().active_id
    return jsonify(body)


@operation(bp, "/tables/<table_id>/devices/press", "POST", summary="Press or hold a virtual button (simulation only)",
           body=DevicePress, body_required=False, headers=PIN_HEADERS,
           replies={202: Reply("Pressed; the table changes when the service hears the button (see the stream).",
                               Pressed), 409: Reply("Not under --simulate-hardware.", Error), **pin_errors()})
def press_button(table_id: str, body: DevicePress):
    """The press goes through the simulated devices like a finger on the real ones. This table becomes the
    active table first (the buttons act on it). timer: press starts, pauses or resumes, hold cancels;
    done-N: player N is done."""
    service, table, refused = _unlocked(table_id, body)
    if refused:
        return refused
    hardware = _simulated_hardware()
    if hardware is None:
        return _not_simulated()
    device = hardware.check_press(body.button, body.action, body.device)
    # The physical buttons act on the active table: pressing one on this page claims the timer for it.
    service.activate(table.id)
    hardware.press(body.button, body.action, device)
    return jsonify({"button": body.button, "action": body.action, "device": device, "table": table.id}), 202


@operation(bp, "/tables/<table_id>/devices/fault", "POST", summary="Make the simulated timer fail as a real one "
           "does (simulation only)", body=DeviceFault, headers=PIN_HEADERS,
           replies={200: Reply("Done.", FaultDone), 409: Reply("Not under --simulate-hardware.", Error),
                    503: Reply("The simulator did not answer.", Error), **pin_errors()})
def device_fault(table_id: str, body: DeviceFault):
    """unplug, replug, reboot, freeze (stops answering), thaw, noise (garbage and a half line on the link)."""
    _, _, refused = _unlocked(table_id, body)
    if refused:
        return refused
    hardware = _simulated_hardware()
    if hardware is None:
        return _not_simulated()
    try:
        hardware.fault(body.fault)
    except TimeoutError:
        response = jsonify({"error": "the simulated timer did not answer"})
        response.status_code = 503
        return response
    return jsonify({"fault": body.fault, "status": hardware.panel()["status"]})


class OpenApiDocument(BaseModel):
    """An OpenAPI 3.1 document."""

    model_config = {"extra": "allow"}
    openapi: str
    info: dict[str, Any]
    paths: dict[str, Any]


@operation(bp, "/openapi.json", summary="This document", replies={200: Reply("OpenAPI 3.1.", OpenApiDocument)})
def openapi():
    from web.contract import current_document

    return jsonify(current_document(
        "Companion table service", companion.__version__,
        "Live scorekeeping for the games at the table. Anyone on the network may read; changing a table needs "
        "its PIN (X-Table-Pin) or its token (X-Table-Token). Errors are {\"error\": message}. See docs/api.md.",
        public_url()))
