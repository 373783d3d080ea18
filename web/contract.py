"""The JSON API's contract, declared once: request and response bodies as pydantic models.

Every /api view is registered with `operation(...)` beside its blueprint's
other views, naming the models of its body, query, headers and answers. The
same declaration does two things, so they cannot disagree:

- it checks each request before the view runs (400 ``{"error": "field: why"}``
  naming the field; unknown keys, NUL characters, lone surrogates, strings
  too long and numbers that are not finite or out of range are refused);
- `document(app)` turns the app's routes and their declarations into the
  OpenAPI 3.1 document served at /api/openapi.json (JSON Schema from
  pydantic, so the document says exactly what the checks do).

A route under /api with no declaration is a bug the tests catch
(tests/web/test_openapi.py), and the answers are checked against their
declared models by the schemathesis run in tests/web/test_contract_fuzz.py.

Why pydantic with this small glue, and not a Flask integration: both
candidates wrap the same pydantic models, and neither fits the service as it is.

- flask-openapi3 replaces `Flask` with its own `OpenAPI` app class and
  blueprints with `APIBlueprint`, passes typed arguments into every view,
  reads bodies with ``get_json(silent=True)`` (a malformed body and no body
  look alike), answers 422 with pydantic's error list, and has no way to
  describe a raw photo body or a text/event-stream answer.
- spectree keeps Flask and blueprints (a decorator), but turns a body that is
  not JSON into ``{}`` before validating it (invalid data accepted), answers
  with pydantic's error list from inside the decorator, and its doc pages
  load their scripts from a CDN (the service must work with no internet).

The glue here is the part neither gives: the JSON depth bounded by scanning
the bytes before they are parsed, ``{"error": ...}`` naming the field, photos
and streams in the document, and `create_app(test_config)`, blueprints and
thin views unchanged.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Annotated, Callable, Mapping

from flask import Blueprint, Flask, current_app, request
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.json_schema import models_json_schema

from companion.errors import InputError

# Deepest nesting of arrays and objects in a request body. The deepest body
# the API takes is 3 levels ({"cells": [{"row": ...}]}); 32 leaves room and
# stays far below what Python's parser can recurse into.
MAX_JSON_DEPTH = 32
# Every string in a request has a declared length; this is the default.
MAX_TEXT = 200
# Lists in a request body: at most this many items unless declared otherwise.
MAX_ITEMS = 64

# Characters no text in a request may hold: NUL (C strings, SQLite tools and
# pages end at it). Lone surrogates are refused too (they are not Unicode
# text and cannot be stored as UTF-8); JSON Schema cannot say that, Python's
# JSON parser makes them from "\\ud800" escapes, and the check below refuses them.
_FORBIDDEN = "\x00"
# Names are shown on pages, in SVG charts and in CSV files: no control
# characters at all (C0, DEL and C1) except the whitespace that is folded to spaces.
_NAME_FORBIDDEN = "\x00-\x08\x0e-\x1b\x7f-\x9f"


def _clean(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must not contain lone surrogates (text that is not Unicode)") from None
    return value


_CONTROL = re.compile(f"[{_NAME_FORBIDDEN}]")


def _clean_name(value: str) -> str:
    _clean(value)
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters")
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def Text(max_length: int = MAX_TEXT, min_length: int = 0, description: str | None = None, **extra: Any) -> Any:
    """A string of `min_length` to `max_length` characters with no NUL and no lone surrogate."""
    return Annotated[str, Field(min_length=min_length, max_length=max_length, description=description,
                                json_schema_extra={"pattern": f"^[^{_FORBIDDEN}]*$", **extra}),
                     AfterValidator(_clean)]


def _integral(value: Any) -> Any:
    # JSON does not tell 1 from 1.0, and neither does JSON Schema's "integer": a whole float is a whole number.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def Whole(ge: int, le: int, description: str | None = None) -> Any:
    """A whole number from `ge` to `le` (1.0 counts as 1; true, "1" and 1.5 do not)."""
    return Annotated[int, BeforeValidator(_integral), Field(ge=ge, le=le, description=description)]


def Name(max_length: int, description: str | None = None) -> Any:
    """A name shown to people: 1 to `max_length` characters, not blank, no control characters."""
    return Annotated[str, Field(min_length=1, max_length=max_length, description=description,
                                json_schema_extra={"pattern": f"^[^{_NAME_FORBIDDEN}]*[^{_NAME_FORBIDDEN}\\s]"
                                                              f"[^{_NAME_FORBIDDEN}]*$"}),
                     AfterValidator(_clean_name)]


class Body(BaseModel):
    """A request body or query: exact JSON types, no unknown keys, finite numbers."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, populate_by_name=True)


class Answer(BaseModel):
    """An answer's body. Only documented: the views build the JSON (some from cached text)."""

    model_config = ConfigDict(extra="forbid")


class Error(Answer):
    """Every error: a message for people (and, for a version conflict, the versions)."""

    error: str
    version: int | None = Field(None, description="409 version conflict: the table's version now.")
    expected_version: int | None = Field(None, description="409 version conflict: the version the request expected.")


# -- reading a request ------------------------------------------------------------------

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[^\[\]{}]+")


def json_depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in the JSON text `raw`, counted without parsing it.

    Brackets inside strings do not count; a text that is not JSON gives some
    number, and the parser then refuses it.
    """
    brackets = _BRACKETS.sub(b"", _STRING.sub(b"", raw))
    depth = deepest = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json(raw: bytes) -> Any:
    """The JSON value in a request body. Raises InputError (too deep, not JSON, NaN or Infinity)."""
    if json_depth(raw) > MAX_JSON_DEPTH:
        raise InputError(f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError("the request body is not valid JSON") from None


_PLAIN = {
    "string_too_long": "at most {max_length} characters",
    "string_too_short": "at least {min_length} characters",
    "too_long": "at most {max_length} items",
    "too_short": "at least {min_length} items",
    "missing": "required",
    "extra_forbidden": "unknown field (not part of this request)",
    "union_tag_not_found": "required",
}


def error_message(exc: ValidationError, where: str = "", tag: Any = None) -> str:
    """Pydantic's first complaint as one line naming the field: ``players.0: ...``.

    `tag` is the value that chose the member of a tagged union (a new table's
    game): pydantic puts it first in the location, where it names no field.
    """
    first = exc.errors(include_url=False)[0]
    loc = list(first["loc"])
    if tag is not None and loc and loc[0] == tag:
        loc = loc[1:]
    location = ".".join(str(part) for part in loc if not isinstance(part, str) or not part.startswith("function-"))
    ctx = first.get("ctx") or {}
    kind = first["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        location = ctx.get("discriminator", "").strip("'")
    if kind == "union_tag_invalid":
        return f"{where}{location}: unknown {location} {ctx.get('tag')!r} (known: {ctx.get('expected_tags')})"
    if kind in _PLAIN:
        return f"{where}{location}: " + _PLAIN[kind].format(**ctx)
    message = first["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    message = message[:1].lower() + message[1:]
    return f"{where}{location}: {message}" if location else f"{where}{message}"


def validate(model: type[BaseModel], data: Any, where: str = "") -> Any:
    """`data` checked against `model`. Raises InputError naming the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        root = model.model_fields.get("root")
        discriminator = getattr(root, "discriminator", None) if root is not None else None
        tag = data.get(discriminator) if isinstance(discriminator, str) and isinstance(data, dict) else None
        raise InputError(error_message(exc, where, tag)) from None


def json_body(model: type[BaseModel] | None, required: bool) -> Any:
    """The request's JSON body checked against `model` (None: any JSON object). Raises InputError."""
    raw = request.get_data(cache=True)
    if not raw:
        if required:
            raise InputError("the request needs a JSON body")
        data: Any = {}
    else:
        data = read_json(raw)
        if not isinstance(data, dict):
            raise InputError("the request body must be a JSON object")
    return data if model is None else validate(model, data)


# -- declaring an operation ------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One documented answer: a JSON model, or another media type (a photo, a stream)."""

    description: str
    model: type[BaseModel] | None = None
    media: str = "application/json"
    schema: Mapping[str, Any] | None = None  # for media that is not JSON
    headers: Mapping[str, str] = field(default_factory=dict)  # name -> description
    # A text/event-stream: each event's name and the model of its JSON data.
    events: Mapping[str, type[BaseModel]] = field(default_factory=dict)


@dataclass(frozen=True)
class Photo:
    """A request body that is a picture: raw image bytes (or a form field, if `form_field`)."""

    description: str
    required: bool = True
    form_field: str | None = None


@dataclass(frozen=True)
class Header:
    name: str
    description: str
    schema: Mapping[str, Any]


@dataclass(frozen=True, eq=False)
class Operation:
    method: str
    summary: str
    description: str
    body: type[BaseModel] | Photo | None
    body_required: bool
    query: type[BaseModel] | None
    headers: tuple[Header, ...]
    replies: Mapping[int, Reply]
    tags: tuple[str, ...]


PIN_HEADERS = (
    # Any text: a wrong PIN is a 403 (and counts towards the limits), like a right one in the wrong form.
    Header("X-Table-Pin", "The table's PIN, 4 to 12 digits (or \"pin\" in the JSON body).",
           {"type": "string"}),
    Header("X-Table-Token", "The table's token, from the X-Table-Token header of an answer to the right PIN; "
                            "stands for the PIN and is never locked out.", {"type": "string"}),
)


def errors(**described: str) -> dict[int, Reply]:
    """Error answers by status: ``errors(e404="No such table.")``."""
    return {int(key[1:]): Reply(text, Error) for key, text in described.items()}


def pin_errors(forbidden: str = "Wrong PIN, or a cross-site request.") -> dict[int, Reply]:
    """The answers every request that changes a table may get before it is looked at."""
    return {
        401: Reply("No PIN given (or a token that is not this table's).", Error),
        403: Reply(forbidden, Error),
        404: Reply("No such table.", Error),
        413: Reply("The request body is too large.", Error),
        415: Reply("The body is not JSON.", Error),
        429: Reply("Too many wrong PINs: wait (see Retry-After).", Error, headers={
            "Retry-After": "Seconds to wait."}),
    }


def operation(bp: Blueprint, rule: str, method: str = "GET", *, summary: str,
              body: type[BaseModel] | Callable[[Flask], type[BaseModel]] | Photo | None = None,
              body_required: bool = True, check_body: bool = True,
              query: type[BaseModel] | None = None, headers: tuple[Header, ...] = (),
              replies: Mapping[int, Reply], description: str = "", tags: tuple[str, ...] = ()) -> Callable:
    """Route a view on `bp` and declare what it takes and answers.

    A JSON `body` model (or a function of the app that makes it, for bodies
    that depend on the games installed) is checked before the view and passed
    to it as ``body=``; with `check_body` False the view gets the JSON object
    as a dict and checks it itself against a part of that model (an action
    against the table's own game). A `query` model is checked likewise and
    passed as ``query=``. Every operation with a body or query may also answer
    400 (added to the document). The view's docstring is its description
    unless one is given.
    """

    def register(view: Callable) -> Callable:
        described = dict(replies)
        if body is not None or query is not None:
            described.setdefault(400, Reply("Bad input: the message names the field.", Error))
        op = Operation(method.upper(), summary, description or _docstring(view), body, body_required, query,
                       tuple(headers), described, tags or (bp.name,))

        @wraps(view)
        def checked(**kwargs: Any):
            if body is not None and not isinstance(body, Photo):
                if check_body:
                    kwargs["body"] = json_body(body_model(op, current_app), body_required)
                else:
                    kwargs["body"] = json_body(None, body_required)
            if query is not None:
                kwargs["query"] = validate(query, dict(request.args.items()), "query ")
            return view(**kwargs)

        checked.contract = op  # type: ignore[attr-defined]
        bp.add_url_rule(rule, view.__name__, checked, methods=[op.method])
        return checked

    return register


def body_model(op: Operation, app: Flask) -> type[BaseModel] | None:
    """The operation's JSON body model in `app` (made once per app when it depends on the app)."""
    if op.body is None or isinstance(op.body, (Photo, type)):
        return op.body if isinstance(op.body, type) else None
    made = app.extensions.setdefault("contract_bodies", {})
    if op not in made:
        made[op] = op.body(app)
    return made[op]


def _docstring(view: Callable) -> str:
    text = (view.__doc__ or "").strip()
    return " ".join(text.split())


def declared(app: Flask, endpoint: str) -> Operation | None:
    view = app.view_functions.get(endpoint)
    return getattr(view, "contract", None)


# -- the document ---------------------------------------------------------------------------

_PATH_PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def document(app: Flask, server_url: str, title: str, version: str, description: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every declared /api route of `app`, with `server_url` as its server."""
    operations: list[tuple[str, str, Operation, list[str]]] = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.rule.startswith("/api/"):
            continue
        op = declared(app, rule.endpoint)
        if op is None:
            raise LookupError(f"{rule.rule} ({rule.endpoint}) has no declared contract (web.contract.operation)")
        path = _PATH_PARAMETER.sub(r"{\2}", rule.rule)
        operations.append((path, op.method.lower(), op, [name for _, name in _PATH_PARAMETER.findall(rule.rule)]))

    models: dict[tuple[type[BaseModel], str], None] = {(Error, "serialization"): None}
    for _, _, op, _ in operations:
        model = body_model(op, app)
        if model is not None:
            models[(model, "validation")] = None
        for reply in op.replies.values():
            for model in ([reply.model] if reply.model is not None else []) + list(reply.events.values()):
                models[(model, "serialization")] = None
    refs, top = models_json_schema(list(models), ref_template="#/components/schemas/{model}")
    schemas = top.get("$defs", {})

    paths: dict[str, dict[str, Any]] = {}
    for path, method, op, names in operations:
        entry: dict[str, Any] = {"summary": op.summary, "operationId": f"{method}{_camel(path)}", "tags": list(op.tags)}
        if op.description:
            entry["description"] = op.description
        parameters = [{"name": name, "in": "path", "required": True,
                       "schema": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[^/]+$"}}
                      for name in names]
        if op.query is not None:
            schema = op.query.model_json_schema(ref_template="#/components/schemas/{model}")
            required = set(schema.get("required", []))
            for name, prop in schema.get("properties", {}).items():
                parameter = {"name": name, "in": "query", "required": name in required,
                             "schema": {k: v for k, v in prop.items() if k not in ("title", "description")}}
                if prop.get("description"):
                    parameter["description"] = prop["description"]
                parameters.append(parameter)
        for header in op.headers:
            parameters.append({"name": header.name, "in": "header", "required": False,
                               "description": header.description, "schema": dict(header.schema)})
        if parameters:
            entry["parameters"] = parameters
        model = body_model(op, app)
        if model is not None:
            entry["requestBody"] = {"required": op.body_required, "content": {
                "application/json": {"schema": refs[(model, "validation")]}}}
        elif isinstance(op.body, Photo):
            binary = {"type": "string", "format": "binary"}
            content: dict[str, Any] = {media: {"schema": binary} for media in ("image/jpeg", "image/png", "image/webp")}
            if op.body.form_field:
                content["multipart/form-data"] = {"schema": {
                    "type": "object", "required": [op.body.form_field],
                    "properties": {op.body.form_field: binary}}}
            entry["requestBody"] = {"required": op.body.required, "description": op.body.description,
                                    "content": content}
        responses: dict[str, Any] = {}
        for status, reply in sorted(op.replies.items()):
            answer: dict[str, Any] = {"description": reply.description}
            if reply.model is not None:
                answer["content"] = {reply.media: {"schema": refs[(reply.model, "serialization")]}}
            elif reply.events:
                # Before OpenAPI 3.2 (itemSchema), an event stream's schema describes each event.
                answer["content"] = {reply.media: {"schema": {"oneOf": [
                    {"type": "object", "required": ["event", "data"], "additionalProperties": False, "properties": {
                        "event": {"const": name},
                        "data": {"type": "string", "contentMediaType": "application/json",
                                 "contentSchema": refs[(model, "serialization")]},
                        "id": {"type": "string", "pattern": "^[0-9]+$"},
                        "retry": {"type": "integer"}}}
                    for name, model in reply.events.items()]}}}
            elif reply.schema is not None:
                answer["content"] = {reply.media: {"schema": dict(reply.schema)}}
            if reply.headers:
                answer["headers"] = {name: {"description": text, "schema": {"type": "string"}}
                                     for name, text in reply.headers.items()}
            responses[str(status)] = answer
        entry["responses"] = responses
        paths.setdefault(path, {})[method] = entry

    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version, "description": description},
        "servers": [{"url": server_url}],
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _camel(path: str) -> str:
    words = re.split(r"[^A-Za-z0-9]+", path.replace("{", "by-").replace("}", ""))
    return "".join(word[:1].upper() + word[1:] for word in words if word and word != "api")


def checked_app(app: Flask) -> None:
    """Raise LookupError now if any /api route is not declared (called by create_app)."""
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/") and declared(app, rule.endpoint) is None:
            raise LookupError(f"{rule.rule} ({rule.endpoint}) has no declared contract (web.contract.operation)")


def current_document(title: str, version: str, description: str, server_url: str) -> dict[str, Any]:
    """The document for the current app, built once per app and server address."""
    cache = current_app.extensions.setdefault("openapi_documents", {})
    if server_url not in cache:
        cache[server_url] = document(current_app, server_url, title, version, description)
    return cache[server_url]
