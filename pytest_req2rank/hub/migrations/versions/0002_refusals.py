"""Refused submissions, logged (and counted per user and day).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "refusals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("refusals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_refusals_user_id"), ["user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_refusals_at"), ["at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("refusals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_refusals_at"))
        batch_op.drop_index(batch_op.f("ix_refusals_user_id"))
    op.drop_table("refusals")
