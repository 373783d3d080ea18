"""Alembic's entry point for the club database: always run from companion.club.store.upgrade().

The caller hands over an open connection (``config.attributes["connection"]``),
so migrations run in the server's own transaction and on its own engine.
"""
from alembic import context

from companion.club.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
