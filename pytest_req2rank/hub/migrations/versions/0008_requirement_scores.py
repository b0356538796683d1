"""Each submission's item scores per requirement, read from its evidence: what the leaderboard
ranks it by (with intervals), computed for the submissions kept before.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("requirement_scores", sa.JSON(), nullable=True))
    _backfill()


def _backfill() -> None:
    """The kept submissions' scores per requirement, from their results and evidence as
    submitted (checked when they were kept)."""
    from pytest_req2rank.hub._item_scores import requirement_scores
    from pytest_req2rank.report import ResultsDocument

    submissions = sa.table("submissions", sa.column("id", sa.Integer()),
                           sa.column("document", sa.JSON()), sa.column("evidence", sa.JSON()),
                           sa.column("requirement_scores", sa.JSON()))
    connection = op.get_bind()
    ids = connection.execute(sa.select(submissions.c.id).order_by(submissions.c.id)).scalars()
    for row_id in list(ids):  # one at a time: a big run's results are large
        document, evidence = connection.execute(
            sa.select(submissions.c.document, submissions.c.evidence)
            .where(submissions.c.id == row_id)).one()
        try:
            computed = requirement_scores(ResultsDocument.model_validate(document), evidence)
        except (ValueError, KeyError, TypeError):  # results the current schema no longer reads
            continue
        connection.execute(submissions.update().where(submissions.c.id == row_id)
                           .values(requirement_scores=computed))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("requirement_scores")
