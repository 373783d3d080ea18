"""Opening the club database: SQLite by default, PostgreSQL for a real club; Alembic keeps the schema.

`open_database(url)` returns a SQLAlchemy engine with its connection pool and
the schema brought up to date (``alembic upgrade head``, run in-process on
the engine's own connection). URLs:

- ``sqlite:///path/club.db`` (or a bare file path): WAL with synchronous=FULL,
  so an answered ingest survives ``kill -9`` and a power cut.
- ``postgresql://user@host/db`` (psycopg 3 is used): a pool of connections,
  each checked before use, so a restarted database is reconnected to by itself.
"""
from __future__ import annotations

import os
from pathlib import Path

from companion.errors import InputError

MIGRATIONS = Path(__file__).with_name("migrations")


class DatabaseError(Exception):
    """The club database cannot be reached or is not a club database."""


def database_url(value: str) -> str:
    """The SQLAlchemy URL for a --database value. Raises InputError naming a value it does not understand."""
    value = value.strip()
    if value.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + value.split("://", 1)[1]
    if value.startswith(("postgresql+psycopg://", "sqlite://")):
        return value
    if "://" in value:
        raise InputError(f"--database {value.split('://', 1)[0]}://...: use postgresql://... or a SQLite file path")
    return "sqlite:///" + str(Path(value).expanduser().resolve())


def open_database(url: str, pool_size: int = 10):
    """An engine on `url` (see database_url) with the schema up to date. Raises DatabaseError."""
    from sqlalchemy import create_engine, event
    from sqlalchemy.exc import SQLAlchemyError

    url = database_url(url)
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            if not Path(path).exists():
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # the device keys' hashes live here
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()
    else:
        engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True,
                               pool_timeout=10, connect_args={"connect_timeout": 5})
    try:
        upgrade(engine)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise DatabaseError(f"cannot open the club database: {_reason(exc)}") from None
    return engine


def upgrade(engine) -> None:
    """Bring the schema to the newest migration (a new database gets every one)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def _reason(exc: BaseException) -> str:
    """The database's own first line, without SQL or parameters (which may hold a device key's hash)."""
    orig = getattr(exc, "orig", None) or exc
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
