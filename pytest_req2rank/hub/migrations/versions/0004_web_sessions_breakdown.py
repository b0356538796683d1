"""Sign-ins on the pages (web sessions); each submission's scores per dimension and skill,
computed for the submissions kept before.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("cookie_sha256", sa.String(length=64), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("cookie_sha256"),
    )
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_web_sessions_user_id"), ["user_id"], unique=False)
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("breakdown", sa.JSON(), nullable=True))
    _backfill_breakdowns()


def _backfill_breakdowns() -> None:
    """The kept submissions' breakdowns, from their results as submitted."""
    from pytest_req2rank.hub._breakdown import breakdown
    from pytest_req2rank.report import ResultsDocument

    submissions = sa.table("submissions", sa.column("id", sa.Integer()),
                           sa.column("document", sa.JSON()), sa.column("breakdown", sa.JSON()))
    connection = op.get_bind()
    rows = connection.execute(sa.select(submissions.c.id, submissions.c.document)).all()
    for row_id, document in rows:
        try:
            computed = breakdown(ResultsDocument.model_validate(document))
        except ValueError:  # results the current schema no longer reads: no breakdown
            continue
        connection.execute(submissions.update().where(submissions.c.id == row_id)
                           .values(breakdown=computed))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("breakdown")
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_web_sessions_user_id"))
    op.drop_table("web_sessions")
