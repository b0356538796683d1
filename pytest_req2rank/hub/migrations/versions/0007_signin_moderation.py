"""Users keyed by GitHub's numeric id; tokens that expire; sign-in states kept by the hub;
one open report per user and submission, and the status reports took a submission out of.

Rows kept before: users stay unbound until their GitHub account next signs in (bound then);
tokens without an expiry expire at their creation plus the hub's token lifetime; duplicate
open reports of one user on one submission are closed as ``duplicate`` (the earliest stays
open); a submission held by reports before keeps ``accepted`` as the status a dismissal
restores (what the hub restored before).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

OPEN = sa.text("resolution IS NULL")


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("github_id", sa.BigInteger(), nullable=True))
        batch_op.create_unique_constraint("uq_users_github_id", ["github_id"])
    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("held_status", sa.String(length=20), nullable=True))
    op.create_table(
        "oauth_states",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("state_sha256", sa.String(length=64), nullable=False),
        sa.Column("next_path", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("state_sha256"),
    )
    with op.batch_alter_table("oauth_states", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_oauth_states_expires_at"), ["expires_at"],
                              unique=False)
    _close_duplicate_reports()
    op.create_index("uq_flags_open_per_user", "flags", ["submission_id", "user_id"],
                    unique=True, sqlite_where=OPEN, postgresql_where=OPEN)
    _held_by_reports()


def _close_duplicate_reports() -> None:
    flags = sa.table("flags", sa.column("id", sa.Integer()), sa.column("submission_id"),
                     sa.column("user_id"), sa.column("resolution", sa.String()),
                     sa.column("resolved_at", sa.DateTime(timezone=True)))
    connection = op.get_bind()
    seen: set[tuple[int, int]] = set()
    duplicates = []
    for row_id, submission_id, user_id in connection.execute(
            sa.select(flags.c.id, flags.c.submission_id, flags.c.user_id)
            .where(flags.c.resolution.is_(None)).order_by(flags.c.id)):
        if (submission_id, user_id) in seen:
            duplicates.append(row_id)
        seen.add((submission_id, user_id))
    if duplicates:
        connection.execute(flags.update().where(flags.c.id.in_(duplicates)).values(
            resolution="duplicate", resolved_at=datetime.now(UTC)))


def _held_by_reports() -> None:
    submissions = sa.table("submissions", sa.column("id", sa.Integer()),
                           sa.column("status", sa.String()), sa.column("flags_reasons", sa.JSON()),
                           sa.column("held_status", sa.String()))
    flags = sa.table("flags", sa.column("submission_id"), sa.column("resolution"))
    connection = op.get_bind()
    reported = sa.select(flags.c.submission_id).where(flags.c.resolution.is_(None))
    for row_id, reasons in connection.execute(
            sa.select(submissions.c.id, submissions.c.flags_reasons)
            .where(submissions.c.status == "flagged", submissions.c.id.in_(reported))):
        if not reasons:  # held by reports alone: the hub's checks raised nothing
            connection.execute(submissions.update().where(submissions.c.id == row_id)
                               .values(held_status="accepted"))


def downgrade() -> None:
    op.drop_index("uq_flags_open_per_user", table_name="flags")
    with op.batch_alter_table("oauth_states", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_oauth_states_expires_at"))
    op.drop_table("oauth_states")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("held_status")
    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.drop_column("expires_at")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_constraint("uq_users_github_id", type_="unique")
        batch_op.drop_column("github_id")
