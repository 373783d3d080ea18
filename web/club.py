"""The club server's web front: a second app factory beside the table's (web.create_app).

`create_club_app(test_config)` builds the Flask app around one
`companion.club.service.ClubService`. Two kinds of client:

- **Table services** (devices) under /api/v1: join with the join code, then
  ship their log entries with ``Authorization: Bearer <device key>``; a
  wrong or revoked key is a 401.
- **People** (a big screen, the organiser's and players' phones): the pages
  (live overview, standings, players, seatings, a table), their JSON under
  /api, and /api/stream, a text/event-stream of the overview like the
  tables' own streams. Changing anything (seatings, revoking a device,
  showing or renewing the join code) needs the club PIN (``X-Club-Pin``).

The same conventions as the table's app: every /api route declared with its
models (web.contract), bad input is a 400 naming the field, errors are
``{"error": ...}``, unsafe requests must be same-origin JSON, bodies are
capped, pages carry a strict CSP, names are escaped (Jinja, textContent).
"""
from __future__ import annotations

import json
import threading
from typing import Annotated, Any, Callable, Mapping

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from pydantic import Field

from companion.club.service import ClubService, NotFound, Shipped, Unauthorized, game_title
from companion.errors import InputError
from web import security, wants_json
from web.contract import (Answer, Body, Error, Header, Name, Reply, Text, Whole, checked_app, current_document,
                          errors, operation, validate)

api = Blueprint("club_api", __name__)
pages = Blueprint("club_pages", __name__)

MAX_BATCH = 1000  # entries in one ingest request (the outbox sends 500)
MAX_STREAMS = 32  # live pages at once: big screens and organisers' phones (players watch their own table)
DEVICE_ERRORS = {401: Reply("No device key, or a wrong or revoked one: join again.", Error)}
PIN_HEADER = (Header("X-Club-Pin", "The club PIN (or \"pin\" in the JSON body).", {"type": "string"}),)
PIN_ERRORS = {401: Reply("No club PIN, or a wrong one.", Error),
              429: Reply("Too many wrong PINs: wait (see Retry-After).", Error)}


def create_club_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """The club's Flask app. Config keys:

    CLUB_SERVICE    a ready ClubService (else one is opened on DATABASE)
    DATABASE        a --database value (SQLite file path or postgresql://...), when no service is given
    CLUB_PIN        the club PIN to set when opening DATABASE
    HEARTBEAT_SECONDS  the live stream's heartbeat (default 15)
    MAX_STREAMS     live streams at once (default 32)
    PIN_ATTEMPTS, PIN_LOCKOUT_SECONDS  wrong club PINs from one address before it waits, and how long
    """
    app = Flask(__name__, template_folder="templates", static_folder="static")
    app.config.from_mapping(CLUB_SERVICE=None, DATABASE=None, CLUB_PIN=None, HEARTBEAT_SECONDS=15.0,
                            MAX_STREAMS=MAX_STREAMS, PIN_ATTEMPTS=5, PIN_LOCKOUT_SECONDS=30.0,
                            MAX_CONTENT_LENGTH=8 * 1024 * 1024)
    if test_config:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False
    service = app.config["CLUB_SERVICE"]
    if service is None:
        from companion.club.store import open_database

        service = ClubService(open_database(app.config["DATABASE"] or "club.db"), pin=app.config["CLUB_PIN"])
        app.config["CLUB_SERVICE"] = service
    app.extensions["club_pin_guard"] = security.PinGuard(app.config["PIN_ATTEMPTS"], app.config["PIN_LOCKOUT_SECONDS"])
    app.extensions["club_streams"] = _Streams(app.config["MAX_STREAMS"])
    app.before_request(security.check_origin)
    app.after_request(security.secure_headers)
    app.register_blueprint(api, url_prefix="/api")
    app.register_blueprint(pages)
    _errors(app)
    checked_app(app)
    app.jinja_env.globals["game_title"] = game_title
    return app


def club() -> ClubService:
    return current_app.config["CLUB_SERVICE"]


def _errors(app: Flask) -> None:
    from sqlalchemy.exc import OperationalError
    from werkzeug.exceptions import HTTPException

    def error(status: int, message: str):
        if wants_json():
            return security.refuse(status, message)
        return render_template("club/error.html", status=status, message=message), status

    app.register_error_handler(InputError, lambda e: error(400, str(e)))
    app.register_error_handler(Unauthorized, lambda e: error(401, str(e)))
    app.register_error_handler(NotFound, lambda e: error(404, str(e)))
    # PostgreSQL restarting or out of reach: the table keeps its outbox and tries again.
    app.register_error_handler(OperationalError, lambda e: error(503, "the club database is not reachable; try again"))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        messages = {404: "no such page", 405: "that method is not allowed here",
                    413: f"the request is larger than {app.config['MAX_CONTENT_LENGTH']} bytes"}
        return error(exc.code or 500, messages.get(exc.code, exc.description or exc.name))


def _device() -> int:
    """The device id of the request's key. Raises Unauthorized."""
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise Unauthorized("this request needs the table's club key (Authorization: Bearer ...)")
    return club().device(key.strip())


def _with_pin(act: Callable[[str], Any], body: Any = None) -> Response:
    """`act(pin)` under the club PIN guard, answered as JSON; a wrong PIN is a 401 (and counts), too many a 429.

    The PIN is checked once, by the club service inside `act` (its first step):
    an Unauthorized from it is a wrong PIN, and anything else means the PIN was right.
    """
    pin = request.headers.get("X-Club-Pin")
    if pin is None and isinstance(body, dict):
        pin = body.get("pin")
    if not pin:
        return security.refuse(401, "the club PIN is needed for this")
    guard: security.PinGuard = current_app.extensions["club_pin_guard"]
    client = request.remote_addr or "?"
    wait = guard.begin(client, "club")
    if wait > 0:
        response = security.refuse(429, f"too many wrong PINs: try again in {int(wait) + 1} seconds")
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    try:
        answer = act(pin)
    except Unauthorized as exc:
        guard.failed(client, "club")
        return security.refuse(401, str(exc))
    except BaseException:
        guard.succeeded(client, "club")
        raise
    guard.succeeded(client, "club")
    return jsonify(answer)


def _checked(pin: str) -> ClubService:
    """The club service, once `pin` is its PIN. Raises Unauthorized."""
    club().check_pin(pin)
    return club()


# -- the contract -----------------------------------------------------------------------------


class JoinBody(Body):
    code: Text(32, 1, "The join code shown on the club page.")
    name: Name(80, "What the club calls this device (\"Table 3\").") | None = None


class Joined(Answer):
    device_id: int
    key: str = Field(description="The device key: send it as Authorization: Bearer <key> from now on.")


class ShippedEntry(Body):
    seq: Whole(1, 2**31 - 1, "The entry's number in its table's log (1, 2, 3, ...).")
    kind: Annotated[str, Field(pattern="^(event|undo|redo|timer)$")]
    body: dict[str, Any]
    created_ms: Whole(0, 2**53, "When the table wrote it, on the table's clock.")


class ShippedTable(Body):
    table_id: Text(32, 1)
    game: Text(40, 1)
    players: Annotated[list[Text(100)], Field(min_length=1, max_length=16)]
    options: dict[str, Any]
    created_ms: Whole(0, 2**53)
    entries: Annotated[list[ShippedEntry], Field(max_length=MAX_BATCH)]


class IngestBody(Body):
    sent_ms: Whole(0, 2**53, "The table's clock when it sent this (the club corrects for a wrong clock).")
    tables: Annotated[list[ShippedTable], Field(max_length=64)]


class Cursors(Answer):
    tables: dict[str, int] = Field(description="Each table of this device: the last seq the club holds.")


class NightQuery(Body):
    model_config = {"strict": False}
    night: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None


class StandingsQuery(Body):
    model_config = {"strict": False}
    game: Text(40, 1) | None = None
    night: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None
    season: Annotated[str, Field(pattern=r"^\d{4}$")] | None = None


class GameQuery(Body):
    model_config = {"strict": False}
    game: Text(40, 1) | None = None
    night: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None


class SeatingBody(Body):
    game: Text(40, 1)
    night: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    round: Whole(1, 1000)
    tables: Annotated[list[Annotated[list[Whole(1, 2**31 - 1)], Field(min_length=2, max_length=4)]],
                      Field(min_length=1, max_length=64)]
    pin: Text(64) | None = None


class PinBody(Body):
    pin: Text(64) | None = None


class Anything(Answer):
    model_config = {"extra": "allow"}


def _ok(description: str) -> dict[int, Reply]:
    return {200: Reply(description, Anything)}


# -- devices ---------------------------------------------------------------------------------------


@operation(api, "/v1/join", "POST", summary="A table service joins the club with the join code", body=JoinBody,
           replies={201: Reply("Joined: keep the key.", Joined), 401: Reply("Wrong join code.", Error),
                    **errors(e403="Cross-site request.", e415="The body is not JSON.")})
def join(body: JoinBody):
    device_id, key = club().join(body.code, body.name)
    return jsonify({"device_id": device_id, "key": key}), 201


@operation(api, "/v1/cursor", summary="What the club holds of each of this device's tables",
           replies={200: Reply("The cursors.", Cursors), **DEVICE_ERRORS})
def cursor():
    return jsonify({"tables": club().cursors(_device())})


@operation(api, "/v1/ingest", "POST", summary="Ship log entries: applied exactly once, in order",
           body=IngestBody, replies={200: Reply("Stored (committed) up to each table's cursor.", Cursors),
                                     **DEVICE_ERRORS, **errors(e413="Too large a batch.", e415="Not JSON.",
                                                               e503="The club database is not reachable.")})
def ingest(body: IngestBody):
    """Entries at or below a table's cursor were stored before and are skipped; entries after a gap wait."""
    device = _device()
    batches = [Shipped(t.table_id, t.game, list(t.players), dict(t.options), t.created_ms,
                       [(e.seq, e.kind, e.body, e.created_ms) for e in t.entries]) for t in body.tables]
    return jsonify({"tables": club().ingest(device, batches, body.sent_ms)})


@operation(api, "/v1/players", summary="The club's player names, for a table's \"I am ...\" list",
           replies={200: _ok("The names.")[200], **DEVICE_ERRORS})
def device_players():
    _device()
    return jsonify({"players": [p["name"] for p in club().players()]})


# -- people's API ------------------------------------------------------------------------------------


@operation(api, "/health", summary="The club server and its database", replies={
    200: _ok("Working.")[200], 503: Reply("The database is not reachable.", Anything)})
def health():
    state = club().health()
    return jsonify(state), 200 if state["ok"] else 503


@operation(api, "/overview", summary="Every table now, and tonight's results", replies=_ok("The overview."))
def overview():
    return jsonify(club().overview())


@operation(api, "/stream", summary="The overview, live (text/event-stream)", replies={
    200: Reply("An `overview` event at once and after every change; `heartbeat` events between.",
               media="text/event-stream", events={"overview": Anything}),
    503: Reply("Too many live pages open.", Error)})
def stream():
    streams: _Streams = current_app.extensions["club_streams"]
    if not streams.take():
        response = security.refuse(503, "too many live pages are open: try again soon")
        response.headers["Retry-After"] = "10"
        return response
    service = club()
    heartbeat = float(current_app.config["HEARTBEAT_SECONDS"])

    def events():
        try:
            seen = -1
            while True:
                version = service.wait_change(seen, heartbeat) if seen >= 0 else service.version
                if version != seen:
                    seen = version
                    yield f"event: overview\nid: {version}\ndata: {json.dumps(service.overview())}\n\n"
                else:
                    yield f"event: heartbeat\ndata: {json.dumps({'version': seen})}\n\n"
        finally:
            streams.give()

    return Response(events(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@operation(api, "/results", summary="Finished games of a night (default tonight), newest first",
           query=NightQuery, replies=_ok("The results."))
def results(query: NightQuery):
    return jsonify({"night": query.night or club().tonight(), "results": club().results(query.night or club().tonight())})


@operation(api, "/standings", summary="Standings of a game for a night, a season or all time", query=StandingsQuery,
           replies=_ok("The standings."))
def standings(query: StandingsQuery):
    game = query.game or _default_game()
    return jsonify({"game": game, "title": game_title(game), "night": query.night, "season": query.season,
                    "standings": club().standings(game, query.night, query.season) if game else []})


@operation(api, "/ratings", summary="Every player's rating in a game, with its uncertainty", query=GameQuery,
           replies=_ok("The ratings."))
def ratings(query: GameQuery):
    game = query.game or _default_game()
    rated = club().ratings(game) if game else {}
    names = club().player_names(rated)
    rows = sorted((dict(r.to_json(), name=names[p]) for p, r in rated.items()), key=lambda r: -r["rating"])
    return jsonify({"game": game, "ratings": rows})


@operation(api, "/players", summary="The club's players", replies=_ok("The players."))
def players():
    return jsonify({"players": club().players()})


@operation(api, "/players/<int:player_id>", summary="A player's history, statistics and ratings",
           replies={**_ok("The player."), **errors(e404="No such player.")})
def player(player_id: int):
    return jsonify(club().player(player_id))


@operation(api, "/tables/<int:ref>", summary="One table: summary and score steps",
           replies={**_ok("The table."), **errors(e404="No such table.")})
def table(ref: int):
    return jsonify(club().table(ref))


@operation(api, "/seatings/proposal", summary="Proposed tables for the next round of a night", query=GameQuery,
           replies={**_ok("The proposal."), 400: Reply("Fewer than 2 players tonight.", Error)})
def seating_proposal(query: GameQuery):
    service = club()
    night = query.night or service.tonight()
    game = query.game or _default_game()
    if not game:
        raise InputError("no game has been finished at the club yet")
    tables = service.propose_seating(game, night)
    names = service.player_names(p for tb in tables for p in tb)
    return jsonify({"game": game, "night": night, "round": service.next_round(night, game),
                    "tables": [[{"player_id": p, "name": names[p]} for p in tb] for tb in tables]})


@operation(api, "/seatings", "POST", summary="Save the organiser's seating (club PIN)", body=SeatingBody,
           headers=PIN_HEADER, replies={**_ok("Saved."), **PIN_ERRORS})
def save_seating(body: SeatingBody):
    tables = [list(t) for t in body.tables]
    return _with_pin(lambda pin: club().save_seating(body.game, body.night, body.round, tables, pin), body.model_dump())


@operation(api, "/seatings", summary="The latest saved seating of a night", query=GameQuery, replies=_ok("The seating."))
def seating(query: GameQuery):
    return jsonify({"seating": club().seating(query.night or club().tonight(), query.game)})


@operation(api, "/devices", summary="The club's devices (club PIN)", headers=PIN_HEADER,
           replies={**_ok("The devices."), **PIN_ERRORS})
def devices():
    return _with_pin(lambda pin: {"devices": _checked(pin).devices()})


@operation(api, "/devices/<int:device_id>/revoke", "POST", summary="Revoke a device's key (club PIN)",
           body=PinBody, body_required=False, headers=PIN_HEADER,
           replies={**_ok("Revoked."), **PIN_ERRORS, **errors(e404="No such device.")})
def revoke(device_id: int, body: PinBody):
    def act(pin: str) -> dict[str, int]:
        club().revoke(device_id, pin)
        club().poke()
        return {"revoked": device_id}
    return _with_pin(act, body.model_dump())


@operation(api, "/join-code", summary="The join code (club PIN)", headers=PIN_HEADER,
           replies={**_ok("The code."), **PIN_ERRORS})
def join_code():
    return _with_pin(lambda pin: {"code": _checked(pin).join_code()})


@operation(api, "/join-code", "POST", summary="A new join code (club PIN); joined devices keep their keys",
           body=PinBody, body_required=False, headers=PIN_HEADER, replies={**_ok("The new code."), **PIN_ERRORS})
def renew_join_code(body: PinBody):
    return _with_pin(lambda pin: {"code": club().new_join_code(pin)}, body.model_dump())


@operation(api, "/openapi.json", summary="This API's OpenAPI document", replies=_ok("The document."))
def openapi():
    return jsonify(current_document("Companion club server", "1", "The club server's API (docs/club.md).",
                                    request.host_url.rstrip("/")))


def _default_game() -> str | None:
    played = club().games_played()
    return played[0] if played else None


# -- pages ----------------------------------------------------------------------------------------------


@pages.get("/")
def home():
    return render_template("club/overview.html", overview=club().overview())


@pages.get("/standings")
def standings_page():
    service = club()
    game = request.args.get("game") or _default_game()
    night = request.args.get("night") or None
    season = request.args.get("season") or None
    query = validate(StandingsQuery, {k: v for k, v in {"game": game, "night": night, "season": season}.items() if v}, "query ")
    rows = service.standings(query.game, query.night, query.season) if query.game else []
    nights = sorted({r["night"] for r in service.results()}, reverse=True)
    return render_template("club/standings.html", game=query.game, night=query.night, season=query.season,
                           rows=rows, games=service.games_played(), nights=nights, tonight=service.tonight())


@pages.get("/players")
def players_page():
    return render_template("club/players.html", players=club().players())


@pages.get("/players/<int:player_id>")
def player_page(player_id: int):
    return render_template("club/player.html", player=club().player(player_id))


@pages.get("/players/<int:player_id>/<game>.svg")
def player_chart(player_id: int, game: str):
    """The player's scores in `game`, game after game (oldest first)."""
    from web.chart import score_chart

    person = club().player(player_id)
    games = [g for g in reversed(person["history"]) if g["game"] == game and g["score"] is not None]
    steps = [(g["finished_ms"], [g["score"]]) for g in games]
    svg = score_chart([person["name"]], steps, title=f"{person['name']}: {game_title(game)} scores, game by game")
    return Response(svg, mimetype="image/svg+xml")


@pages.get("/tables/<int:ref>")
def table_page(ref: int):
    return render_template("club/table.html", table=club().table(ref))


@pages.get("/tables/<int:ref>/chart.svg")
def table_chart(ref: int):
    from web.chart import score_chart

    item = club().table(ref)
    return Response(score_chart(item["chart_players"], item["steps"], title=f"{item['title']}: scores"),
                    mimetype="image/svg+xml")


@pages.get("/seatings")
def seatings_page():
    service = club()
    games = service.games_played()
    game = request.args.get("game") or (games[0] if games else None)
    return render_template("club/seatings.html", game=game, games=games, tonight=service.tonight(),
                           players=service.players(), saved=service.seating(service.tonight(), game))


@pages.get("/admin")
def admin_page():
    return render_template("club/admin.html")


@pages.get("/export.csv")
def export_csv():
    night = validate(NightQuery, dict(request.args.items()), "query ").night
    return Response(club().export_csv(night), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="club-{night or "all"}.csv"'})


@pages.get("/export.json")
def export_json():
    night = validate(NightQuery, dict(request.args.items()), "query ").night
    response = jsonify(club().export_json(night))
    response.headers["Content-Disposition"] = f'attachment; filename="club-{night or "all"}.json"'
    return response


class _Streams:
    """Live streams open at once, against the cap (each holds one of the server's threads)."""

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

    def give(self) -> None:
        with self._lock:
            self.open -= 1
