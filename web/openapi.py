"""The OpenAPI 3 description of /api, served at /api/openapi.json.

Written by hand next to the routes it describes; tests/web check that every
/api route of the app appears here and nothing else does.
"""
from __future__ import annotations

from typing import Any

import companion


def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _table(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Table"}}}}


_TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"},
             "description": "The table's id, as in its address (/tables/<id>)."}
_CHECK_ID = {"name": "check_id", "in": "path", "required": True, "schema": {"type": "string"},
             "description": "The camera check's id, from POST .../camera-checks."}
_PIN_HEADER = {"name": "X-Table-Pin", "in": "header", "required": False, "schema": {"type": "string"},
               "description": "The table's PIN (or \"pin\" in the JSON body)."}
_PIN_ERRORS = {
    "401": _error("No PIN given."),
    "403": _error("Wrong PIN, or a cross-site request."),
    "404": _error("No such table."),
    "413": _error("The request body is too large."),
    "415": _error("The body is not JSON."),
    "429": _error("Too many wrong PINs from this client: wait (see Retry-After)."),
}
_MUTATION_FIELDS = {
    "action_id": {"type": "string", "maxLength": 64,
                  "description": "Any unique string; a request repeated with the same action_id is applied once."},
    "expected_version": {"type": "integer", "description": "Refuse with 409 unless the table is at this version."},
    "pin": {"type": "string", "description": "The table PIN, if not sent in X-Table-Pin."},
}


def document(server_url: str) -> dict[str, Any]:
    """The OpenAPI document, with this service's address as its server."""
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Companion table service",
            "version": companion.__version__,
            "description": ("Live scorekeeping for the games at the table. Anyone on the network may read; "
                            "changing a table needs its PIN. Errors are {\"error\": message}."),
        },
        "servers": [{"url": server_url}],
        "paths": {
            "/api/health": {"get": {
                "summary": "Status of the service, the database, the timer device, GPIO and camera",
                "responses": {"200": {"description": "Working", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Health"}}}},
                    "503": {"description": "The database is not usable"}}}},
            "/api/time": {"get": {
                "summary": "The server's clock, for phones to measure their offset",
                "responses": {"200": {"description": "Now", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"server_time_ms": {"type": "integer"}}}}}}}}},
            "/api/games": {"get": {
                "summary": "Installed games with their player counts and default options",
                "responses": {"200": {"description": "Games", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"games": {"type": "array", "items": {
                        "$ref": "#/components/schemas/Game"}}}}}}}}}},
            "/api/tables": {
                "get": {"summary": "Every table",
                        "responses": {"200": {"description": "Tables", "content": {"application/json": {"schema": {
                            "type": "object", "properties": {"tables": {"type": "array", "items": {
                                "$ref": "#/components/schemas/TableSummary"}}}}}}}}},
                "post": {
                    "summary": "Create a table",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {
                        "$ref": "#/components/schemas/NewTable"}}}},
                    "responses": {
                        "201": {"description": "Created: the table, plus its PIN and the address for phones",
                                "content": {"application/json": {"schema": {"allOf": [
                                    {"$ref": "#/components/schemas/Table"},
                                    {"type": "object", "properties": {"pin": {"type": "string"},
                                                                      "url": {"type": "string"}}}]}}}},
                        "400": _error("Unknown game, bad players, options or PIN."),
                        "403": _error("Cross-site request."),
                        "413": _error("The request body is too large."),
                        "415": _error("The body is not JSON.")}}},
            "/api/tables/{table_id}": {"get": {
                "summary": "The table now: players, version, the game's state, allowed actions, the timer",
                "parameters": [_TABLE_ID],
                "responses": {"200": _table("The table"), "404": _error("No such table.")}}},
            "/api/tables/{table_id}/events": {"get": {
                "summary": "The table's whole log: events, undo, redo and timer entries",
                "parameters": [_TABLE_ID],
                "responses": {"200": {"description": "The log", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "id": {"type": "string"}, "version": {"type": "integer"},
                        "entries": {"type": "array", "items": {"$ref": "#/components/schemas/LogEntry"}}}}}}},
                    "404": _error("No such table.")}}},
            "/api/tables/{table_id}/actions": {"post": {
                "summary": "Play an event of the game's vocabulary (pivit-tiles: start-round, trade, done, "
                           "return-stick, verify, timer-expired, next-round, leave)",
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["type"], "additionalProperties": True,
                    "properties": {"type": {"type": "string"}, "player": {"type": "integer", "minimum": 0},
                                   **_MUTATION_FIELDS}}}}},
                "responses": {"200": _table("The new table (with \"duplicate\": true if action_id was seen before)"),
                              "400": _error("The rules forbid it now (the engine's message), or it is not an action."),
                              "409": _error("Version conflict: the table is no longer at expected_version."),
                              **_PIN_ERRORS}}},
            "/api/tables/{table_id}/undo": {"post": {
                "summary": "Take back the last event (everyone sees it at once)",
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": False, "content": {"application/json": {"schema": {
                    "type": "object", "properties": _MUTATION_FIELDS}}}},
                "responses": {"200": _table("The table after the undo"),
                              "409": _error("Nothing to undo, or a version conflict."), **_PIN_ERRORS}}},
            "/api/tables/{table_id}/redo": {"post": {
                "summary": "Put back the last undone event",
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": False, "content": {"application/json": {"schema": {
                    "type": "object", "properties": _MUTATION_FIELDS}}}},
                "responses": {"200": _table("The table after the redo"),
                              "409": _error("Nothing to redo, or a version conflict."), **_PIN_ERRORS}}},
            "/api/tables/{table_id}/timer": {"post": {
                "summary": "Start, pause, resume or cancel the table's countdown by hand",
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["command"], "properties": {
                        "command": {"type": "string", "enum": ["start", "pause", "resume", "cancel"]},
                        "seconds": {"type": "number", "description": "Length for start (default: what the rules "
                                                                     "ask for, else the configured length)"},
                        **_MUTATION_FIELDS}}}}},
                "responses": {"200": _table("The table with its new countdown"),
                              "400": _error("Unknown command."),
                              "409": _error("The timer cannot do that now, or a version conflict."),
                              **_PIN_ERRORS}}},
            "/api/tables/{table_id}/pin": {"post": {
                "summary": "Check a PIN before the first tap (wrong ones count like any other)",
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "responses": {"200": {"description": "Right PIN", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"ok": {"type": "boolean"}}}}}}, **_PIN_ERRORS}}},
            "/api/tables/{table_id}/stream": {"get": {
                "summary": "Live updates as text/event-stream",
                "description": ("Each `table` event carries the whole table (as GET /api/tables/{id}) with its "
                                "version as the event id; `heartbeat` events carry the server clock. Reconnect "
                                "with Last-Event-ID (or ?last_event_id=) to get the table at once if it changed."),
                "parameters": [_TABLE_ID,
                               {"name": "Last-Event-ID", "in": "header", "required": False,
                                "schema": {"type": "integer"}},
                               {"name": "last_event_id", "in": "query", "required": False,
                                "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "The stream",
                                      "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                              "404": _error("No such table."),
                              "503": _error("Too many open streams: retry after Retry-After seconds.")}}},
            "/api/tables/{table_id}/camera-checks": {"post": {
                "summary": "Read and check a photo of a player's Pivit grid",
                "description": ("Send the photo as the body (image/jpeg, image/png, image/webp) or as the form "
                                "field `photo`; with no body the table's camera takes the picture. The answer is "
                                "the grid as read, the verdict with the table's rules, and the annotated picture's "
                                "address. Nothing is recorded until the check's verify is posted."),
                "parameters": [_TABLE_ID, _PIN_HEADER,
                               {"name": "player", "in": "query", "required": True, "schema": {"type": "integer"},
                                "description": "Whose grid this is (index in the players list)."}],
                "requestBody": {"required": False, "content": {
                    "image/*": {"schema": {"type": "string", "format": "binary"}},
                    "multipart/form-data": {"schema": {"type": "object", "properties": {
                        "photo": {"type": "string", "format": "binary"}}}}}},
                "responses": {"201": {"description": "The check", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/CameraCheck"}}}},
                              "400": _error("Not a usable photo, or no such player."),
                              "409": _error("No camera attached and no photo sent, or not a Pivit tile table."),
                              "422": _error("No grid of tiles found in the photo."),
                              **_PIN_ERRORS}}},
            "/api/tables/{table_id}/camera-checks/{check_id}": {"get": {
                "summary": "A recent camera check (kept in memory, the last few per table)",
                "parameters": [_TABLE_ID, _CHECK_ID],
                "responses": {"200": {"description": "The check", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/CameraCheck"}}}},
                              "404": _error("No such table or check.")}}},
            "/api/tables/{table_id}/camera-checks/{check_id}/annotated.png": {"get": {
                "summary": "The photo with every tile labelled and the faulty lines outlined",
                "parameters": [_TABLE_ID, _CHECK_ID],
                "responses": {"200": {"description": "PNG", "content": {"image/png": {
                    "schema": {"type": "string", "format": "binary"}}}},
                              "404": _error("No such table or check.")}}},
            "/api/tables/{table_id}/camera-checks/{check_id}/corrections": {"post": {
                "summary": "Correct misread cells (one tap on the phone); the grid is checked again",
                "parameters": [_TABLE_ID, _CHECK_ID, _PIN_HEADER],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["cells"], "properties": {
                        "cells": {"type": "array", "items": {"type": "object", "required": ["row", "col", "tile"],
                                  "properties": {"row": {"type": "integer"}, "col": {"type": "integer"},
                                                 "tile": {"type": "string", "nullable": True,
                                                          "description": "3G, ** for a wild, null: no tile"}}}},
                        "pin": _MUTATION_FIELDS["pin"]}}}}},
                "responses": {"200": {"description": "The check after the corrections", "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/CameraCheck"}}}},
                              "400": _error("A correction that is not a cell and a tile."),
                              **_PIN_ERRORS}}},
            "/api/tables/{table_id}/camera-checks/{check_id}/verify": {"post": {
                "summary": "Record the check's verdict as the round's verify event (source: camera)",
                "parameters": [_TABLE_ID, _CHECK_ID, _PIN_HEADER],
                "requestBody": {"required": False, "content": {"application/json": {"schema": {
                    "type": "object", "properties": _MUTATION_FIELDS}}}},
                "responses": {"200": _table("The table after the verify event"),
                              "400": _error("The rules do not allow verifying this player now."),
                              "409": _error("Version conflict."),
                              **_PIN_ERRORS}}},
            "/api/devices": {"get": {
                "summary": "The timer devices in one line, and under --simulate-hardware the virtual display, "
                           "buzzer and buttons",
                "description": ("The table page polls this while it is visible (every 250 ms under simulation, "
                                "else every 3 s). `view` is what the simulated Pico shows, driven by the firmware's "
                                "own code; `events` are the display and buzzer changes after `since` (pass the "
                                "previous answer's `next`), so a 40 ms buzzer tick between two polls is not lost."),
                "parameters": [{"name": "since", "in": "query", "required": False,
                                "schema": {"type": "integer", "minimum": 0},
                                "description": "The `next` of the previous answer."}],
                "responses": {"200": {"description": "The devices", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/DevicePanel"}}}},
                              "400": _error("since is not a number.")}}},
            "/api/tables/{table_id}/devices/press": {"post": {
                "summary": "Press or hold a virtual button (simulation only)",
                "description": ("The press goes through the simulated devices like a finger on the real ones: "
                                "the Pico's timer button through the firmware and the serial link, a GPIO button "
                                "through gpiozero's mock pin. This table becomes the active table first (the "
                                "buttons act on it). Answers at once; the table changes when the service hears "
                                "the button (see the stream). timer: press starts, pauses or resumes, hold "
                                "cancels; done-N: player N is done."),
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": False, "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "button": {"type": "string", "default": "timer", "example": "done-0"},
                        "action": {"type": "string", "enum": ["press", "hold"], "default": "press"},
                        "device": {"type": "string", "enum": ["pico", "gpio"],
                                   "description": "Default: pico for timer, gpio for the others."},
                        "pin": _MUTATION_FIELDS["pin"]}}}}},
                "responses": {"202": {"description": "Pressed", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "button": {"type": "string"}, "action": {"type": "string"},
                        "device": {"type": "string"}, "table": {"type": "string"}}}}}},
                              "400": _error("No such button, action or device."),
                              "409": _error("Not under --simulate-hardware."),
                              **_PIN_ERRORS}}},
            "/api/tables/{table_id}/devices/fault": {"post": {
                "summary": "Make the simulated timer fail as a real one does (simulation only)",
                "description": ("unplug (a USB-powered Pico goes dark; the service counts on), replug, reboot, "
                                "freeze (stops answering), thaw, noise (garbage and a half line on the link). "
                                "The status line and /api/health say what happened and when it recovered."),
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["fault"], "properties": {
                        "fault": {"type": "string",
                                  "enum": ["unplug", "replug", "reboot", "freeze", "thaw", "noise"]},
                        "pin": _MUTATION_FIELDS["pin"]}}}}},
                "responses": {"200": {"description": "Done", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "fault": {"type": "string"},
                        "status": {"$ref": "#/components/schemas/DeviceStatus"}}}}}},
                              "400": _error("No such fault."),
                              "409": _error("Not under --simulate-hardware."),
                              "503": _error("The simulator did not answer."),
                              **_PIN_ERRORS}}},
            "/api/tables/{table_id}/hints": {"post": {
                "summary": "\"I'm stuck\": an arrangement of a Pivit hand, or which tile to trade",
                "description": ("Needs the table option hints (auto: on in the younger-players variation). "
                                "Changes nothing at the table; following the advice is a trade action."),
                "parameters": [_TABLE_ID, _PIN_HEADER],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["player", "tiles"], "properties": {
                        "player": {"type": "integer"},
                        "tiles": {"type": "array", "items": {"type": "string"}, "maxItems": 40,
                                  "description": "The tiles in the hand, like 3G, ** for a wild."},
                        "pin": _MUTATION_FIELDS["pin"]}}}}},
                "responses": {"200": {"description": "The hint", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "player": {"type": "integer"}, "tiles": {"type": "integer"},
                        "playable": {"type": "boolean"},
                        "grid": {"type": "string", "nullable": True},
                        "cells": {"type": "array", "nullable": True, "items": {
                            "type": "object", "properties": {"row": {"type": "integer"},
                                                             "col": {"type": "integer"},
                                                             "tile": {"type": "string"}}}},
                        "trades_left": {"type": "integer"},
                        "advice": {"type": "array", "items": {"type": "object", "properties": {
                            "trade": {"type": "string"}, "p_one": {"type": "number"}, "p_two": {"type": "number"},
                            "p_two_stderr": {"type": "number"}}}},
                        "p_two_exact": {"type": "boolean"}, "unknown": {"type": "integer"},
                        "certain": {"type": "boolean"}, "elapsed_ms": {"type": "number"}}}}}},
                              "400": _error("Not a hand of tiles of this tile set, or no such player."),
                              "409": _error("Not a Pivit tile table."),
                              **{**_PIN_ERRORS, "403": _error("Hints are off at this table, wrong PIN, or cross-site.")}}}},
            "/api/tables/{table_id}/hand-photos": {"post": {
                "summary": "Read the loose tiles of a hand from a photo (to fill the hint's picker)",
                "parameters": [_TABLE_ID, _PIN_HEADER,
                               {"name": "player", "in": "query", "required": False, "schema": {"type": "integer"}}],
                "requestBody": {"required": True, "content": {"image/*": {"schema": {
                    "type": "string", "format": "binary"}}}},
                "responses": {"200": {"description": "The tiles read", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"tiles": {"type": "array", "items": {"type": "string"}},
                                                     "hand": {"type": "string"}, "elapsed_ms": {"type": "number"}}}}}},
                              "400": _error("Not a usable photo."),
                              "422": _error("No tiles found in the photo."),
                              **{**_PIN_ERRORS, "403": _error("Hints are off at this table, wrong PIN, or cross-site.")}}}},
            "/api/openapi.json": {"get": {
                "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3", "content": {"application/json": {}}}}}},
        },
        "components": {"schemas": {
            "CameraCheck": {"type": "object", "properties": {
                "id": {"type": "string"}, "table": {"type": "string"}, "player": {"type": "integer"},
                "revision": {"type": "integer", "description": "How many corrections were applied."},
                "grid": {"type": "string", "description": "The grid as read, in the grid-file format."},
                "tiles": {"type": "array", "items": {"type": "object", "properties": {
                    "row": {"type": "integer"}, "col": {"type": "integer"}, "tile": {"type": "string"},
                    "confidence": {"type": "number"}, "corrected": {"type": "boolean"}}}},
                "unsure": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}},
                           "description": "Cells read with low confidence: worth a second look."},
                "valid": {"type": "boolean"},
                "violations": {"type": "array", "items": {"type": "object", "properties": {
                    "rule": {"type": "string"}, "cells": {"type": "array"}, "message": {"type": "string"}}}},
                "rules": {"type": "object"}, "elapsed_ms": {"type": "number"},
                "annotated_url": {"type": "string"}}},
            "DevicePanel": {"type": "object", "properties": {
                "simulated": {"type": "boolean", "description": "Under --simulate-hardware."},
                "status": {"$ref": "#/components/schemas/DeviceStatus"},
                "view": {"type": "object", "nullable": True, "description": (
                    "Simulation only: {t, display: \"0:59\" (\"\" when dark), buzzer: on|off, brightness 0-7, "
                    "powered, frozen, boots, link, gpio: {buzzer, led_running, led_last_seconds}}.")},
                "events": {"type": "array", "items": {"type": "object", "properties": {
                    "n": {"type": "integer"}, "t": {"type": "number"},
                    "display": {"type": "string"}, "buzzer": {"type": "string", "enum": ["on", "off"]}}}},
                "next": {"type": "integer", "description": "Pass as ?since= on the next poll."},
                "buttons": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "device": {"type": "string", "enum": ["pico", "gpio"]},
                    "player": {"type": "integer"}}}},
                "faults": {"type": "array", "items": {"type": "string"}},
                "active_table": {"type": "string", "nullable": True,
                                 "description": "The table the physical timer shows and its buttons act on."}}},
            "DeviceStatus": {"type": "object", "properties": {
                "level": {"type": "string", "enum": ["ok", "off", "recovered", "fault"]},
                "line": {"type": "string", "example": "Timer display back after 1.2 s: countdown re-synced · "
                                                      "GPIO: mock pins (simulated)"},
                "timer": {"type": "object", "properties": {
                    "state": {"type": "string", "nullable": True}, "level": {"type": "string"},
                    "text": {"type": "string"}}},
                "gpio": {"type": "object", "properties": {
                    "state": {"type": "string", "nullable": True}, "level": {"type": "string"},
                    "text": {"type": "string"}}}}},
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
            "Health": {"type": "object", "properties": {
                "status": {"type": "string", "enum": ["ok", "error"]},
                "version": {"type": "string"},
                "service": {"type": "object"}, "database": {"$ref": "#/components/schemas/Status"},
                "timer": {"$ref": "#/components/schemas/Status"}, "gpio": {"$ref": "#/components/schemas/Status"},
                "camera": {"$ref": "#/components/schemas/Status"}}},
            "Status": {"type": "object", "properties": {"ok": {"type": "boolean"}, "detail": {"type": "string"}},
                       "additionalProperties": True},
            "Game": {"type": "object", "properties": {
                "id": {"type": "string"}, "title": {"type": "string"},
                "min_players": {"type": "integer"}, "max_players": {"type": "integer"},
                "options": {"type": "object"}, "timed": {"type": "boolean"}}},
            "NewTable": {"type": "object", "required": ["game", "players"], "properties": {
                "game": {"type": "string", "example": "pivit-tiles"},
                "players": {"type": "array", "items": {"type": "string", "maxLength": 24}},
                "options": {"type": "object", "description": (
                    "The game's options (GET /api/games shows them with their defaults; pivit-tiles: "
                    "timer_seconds, target, stick_values, young, tokens, tiles, tie_break, hints) "
                    "and \"pin\", the table PIN.")},
                "pin": {"type": "string", "pattern": "^[0-9]{4,12}$",
                        "description": "The table PIN (also accepted as options.pin); random if not given."}}},
            "TableSummary": {"type": "object", "properties": {
                "id": {"type": "string"}, "game": {"type": "string"}, "title": {"type": "string"},
                "players": {"type": "array", "items": {"type": "string"}}, "version": {"type": "integer"},
                "finished": {"type": "boolean"}, "created_ms": {"type": "integer"},
                "finished_ms": {"type": "integer", "nullable": True}}},
            "Timer": {"type": "object", "properties": {
                "status": {"type": "string", "enum": ["idle", "running", "paused", "expired"]},
                "key": {"type": "string", "nullable": True,
                        "description": "What the rules started it for; null when started by hand."},
                "duration_ms": {"type": "integer"}, "remaining_ms": {"type": "integer"},
                "deadline_ms": {"type": "integer", "nullable": True,
                                "description": "When it runs out, on the server's wall clock (running only)."},
                "server_time_ms": {"type": "integer"}}},
            "Table": {"type": "object", "required": ["id", "game", "players", "version", "state"], "properties": {
                "id": {"type": "string"}, "game": {"type": "string"}, "title": {"type": "string"},
                "players": {"type": "array", "items": {"type": "string"}},
                "options": {"type": "object"},
                "version": {"type": "integer", "description": "Number of the last log entry; every change moves it on."},
                "state": {"type": "object", "description": (
                    "The game's own JSON. pivit-tiles: phase, round, target, centre_sticks, "
                    "players[{name, score, tokens, stick, active, done, waiting_verify, verified, racing}], "
                    "rounds, winners, last.")},
                "actions": {"type": "array", "items": {"type": "object"},
                            "description": "The events the rules allow now."},
                "finished": {"type": "boolean"},
                "can_undo": {"type": "boolean"}, "can_redo": {"type": "boolean"},
                "undo_event": {"type": "object", "nullable": True},
                "redo_event": {"type": "object", "nullable": True},
                "timer": {"$ref": "#/components/schemas/Timer"},
                "server_time_ms": {"type": "integer"},
                "created_ms": {"type": "integer"}, "finished_ms": {"type": "integer", "nullable": True},
                "last_change": {"type": "object", "nullable": True}}},
            "LogEntry": {"type": "object", "properties": {
                "seq": {"type": "integer"}, "kind": {"type": "string", "enum": ["event", "undo", "redo", "timer"]},
                "body": {"type": "object"}, "action_id": {"type": "string", "nullable": True},
                "at_ms": {"type": "integer"}}},
        }},
    }
