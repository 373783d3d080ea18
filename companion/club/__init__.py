"""The club server's brain: many tables' logs in one database, and what a club makes of them.

- `schema`: the tables of the club database (SQLAlchemy Core), one schema for
  SQLite and PostgreSQL, created and upgraded by Alembic (`migrations/`).
- `store`: opening the database (an engine with a connection pool) and
  bringing its schema up to date.
- `service`: joining devices, ingesting shipped log entries exactly once,
  results, players, standings, ratings, seatings and exports.
- `ratings`, `seatings`: the pure parts (openskill ratings; proposed tables).

Nothing here imports Flask: web/club.py is the club's app factory on top.
"""
