"""Real games for the club tests: played on a real TableService, shipped as a table ships them."""
from __future__ import annotations

from companion.store import EventStore
from companion.tables import TableService


def table_service(path, clock) -> TableService:
    return TableService(EventStore(path), clock=clock)


def finish_pivit(service: TableService, clock, table_id: str, winner: int = 0) -> None:
    """Play a Pivit tile game to its end: `winner` calls done and is verified right each round."""
    while True:
        service.act(table_id, {"type": "start-round"})
        service.act(table_id, {"type": "done", "player": winner})
        service.act(table_id, {"type": "verify", "player": winner, "valid": True})
        clock.advance(60)
        service.fire_due()
        if service.get(table_id).finished:
            return
        service.act(table_id, {"type": "next-round"})


def shipped(service: TableService, table_id: str, after: int = 0, upto: int | None = None) -> dict:
    """The table's batch as the outbox sends it: entries after `after` (up to seq `upto`)."""
    table = service.get(table_id)
    record = table.record
    entries = [e for e in service.store.entries(table_id, after=after) if upto is None or e.seq <= upto]
    return {"table_id": table_id, "game": record.game, "players": list(record.players), "options": record.options,
            "created_ms": record.created_ms,
            "entries": [{"seq": e.seq, "kind": e.kind, "body": e.body, "created_ms": e.created_ms} for e in entries]}
