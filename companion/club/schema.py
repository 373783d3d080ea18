"""The club database's tables, declared once (SQLAlchemy Core) for SQLite and PostgreSQL.

Times are milliseconds since the epoch. `created_ms` of a shipped entry is the
table's own clock; `club_ms` is that moment on the club's clock (the entry's
time corrected by how far the table's clock was off when it shipped), so a
table whose clock is wrong by an hour still lands on the right night. Order
never comes from clocks: a table's entries are ordered by `seq` alone.
"""
from __future__ import annotations

from sqlalchemy import (BigInteger, Column, Float, ForeignKey, Integer, MetaData, String, Table, Text,
                        UniqueConstraint)

metadata = MetaData()

settings = Table(
    "club_settings", metadata,
    Column("key", String(40), primary_key=True),
    Column("value", Text, nullable=False),
)

devices = Table(
    "devices", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(80), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("last_seen_ms", BigInteger),
    Column("revoked_ms", BigInteger),
)

tables = Table(
    "club_tables", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("device_id", Integer, ForeignKey("devices.id"), nullable=False),
    Column("table_id", String(32), nullable=False),
    Column("game", String(40), nullable=False),
    Column("players", Text, nullable=False),  # JSON list of the names as typed at the table
    Column("options", Text, nullable=False),  # JSON object
    Column("created_ms", BigInteger, nullable=False),  # club clock
    Column("night", String(10), nullable=False),  # YYYY-MM-DD: the club night the game began in
    Column("last_seq", Integer, nullable=False, default=0),
    Column("finished_ms", BigInteger),  # club clock; None while playing (or after an undo)
    UniqueConstraint("device_id", "table_id", name="club_tables_device_table"),
)

entries = Table(
    "entries", metadata,
    Column("table_ref", Integer, ForeignKey("club_tables.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("body", Text, nullable=False),  # JSON
    Column("created_ms", BigInteger, nullable=False),  # the table's clock
    Column("club_ms", BigInteger, nullable=False),  # the club's clock
)

players = Table(
    "players", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(40), nullable=False),
    Column("name_key", String(40), nullable=False, unique=True),
    Column("created_ms", BigInteger, nullable=False),
)

# One row per seat of a finished game: what standings and ratings are made of.
results = Table(
    "results", metadata,
    Column("table_ref", Integer, ForeignKey("club_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False, index=True),
    Column("game", String(40), nullable=False),
    Column("night", String(10), nullable=False, index=True),
    Column("finished_ms", BigInteger, nullable=False),
    Column("score", Float),  # None for a game without scores
    Column("rank", Integer, nullable=False),  # 1 = first; tied players share a rank
    Column("seats", Integer, nullable=False),  # players in that game
)

seatings = Table(
    "seatings", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("night", String(10), nullable=False),
    Column("round", Integer, nullable=False),
    Column("game", String(40), nullable=False),
    Column("body", Text, nullable=False),  # JSON: [[player id, ...], ...] one list per table
    Column("created_ms", BigInteger, nullable=False),
    UniqueConstraint("night", "round", "game", name="seatings_night_round_game"),
)
