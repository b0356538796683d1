"""Re-verification's attempts and backoff; kept runs the hub cannot replay leave the ranking.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reverify_attempts", sa.Integer(), nullable=False,
                                      server_default="0"))
        batch_op.add_column(sa.Column("reverify_after", sa.DateTime(timezone=True),
                                      nullable=True))
    _unrank_unreplayable()


def _unrank_unreplayable() -> None:
    """Accepted runs whose requirements no seed plans again (generator, templates, a suite
    file, N-version) become ``unverified``, with the reason in their history."""
    from pytest_req2rank.hub._replay import why_not_planned

    submissions = sa.table("submissions", sa.column("id", sa.Integer()),
                           sa.column("status", sa.String()), sa.column("document", sa.JSON()))
    changes = sa.table("status_changes", sa.column("submission_id", sa.Integer()),
                       sa.column("status", sa.String()), sa.column("reason", sa.Text()),
                       sa.column("actor", sa.String()),
                       sa.column("at", sa.DateTime(timezone=True)))
    connection = op.get_bind()
    rows = connection.execute(sa.select(submissions.c.id, submissions.c.document).where(
        submissions.c.status == "accepted")).all()
    for row_id, document in rows:
        reason = why_not_planned((document or {}).get("run") or {})
        if reason is None:
            continue
        connection.execute(submissions.update().where(submissions.c.id == row_id)
                           .values(status="unverified"))
        connection.execute(changes.insert().values(
            submission_id=row_id, status="unverified", actor="hub",
            reason=f"the hub cannot replay it: {reason}", at=datetime.now(UTC)))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("reverify_after")
        batch_op.drop_column("reverify_attempts")
