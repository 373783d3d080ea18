"""The club database as first released: devices, tables, their entries, players, results, seatings.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "club_settings",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "devices",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("last_seen_ms", sa.BigInteger),
        sa.Column("revoked_ms", sa.BigInteger),
    )
    op.create_table(
        "club_tables",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("device_id", sa.Integer, sa.ForeignKey("devices.id"), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("night", sa.String(10), nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("finished_ms", sa.BigInteger),
        sa.UniqueConstraint("device_id", "table_id", name="club_tables_device_table"),
    )
    op.create_table(
        "entries",
        sa.Column("table_ref", sa.Integer, sa.ForeignKey("club_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("club_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False, unique=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "results",
        sa.Column("table_ref", sa.Integer, sa.ForeignKey("club_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("night", sa.String(10), nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
    )
    op.create_index("ix_results_player_id", "results", ["player_id"])
    op.create_index("ix_results_night", "results", ["night"])
    op.create_table(
        "seatings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("night", sa.String(10), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("night", "round", "game", name="seatings_night_round_game"),
    )


def downgrade() -> None:
    for name in ("seatings", "results", "players", "entries", "club_tables", "devices", "club_settings"):
        op.drop_table(name)
