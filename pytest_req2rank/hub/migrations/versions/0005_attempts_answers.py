"""Nonces as attempts (the model and settings a run declared when it fetched its nonce); each
kept submission's answers (response hashes), to refuse a run submitted again as another's.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("nonces", schema=None) as batch_op:
        batch_op.add_column(sa.Column("model", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("declared", sa.JSON(), nullable=True))
        batch_op.create_index(batch_op.f("ix_nonces_model"), ["model"], unique=False)
    op.create_table(
        "submission_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("response_sha256", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submission_answers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_submission_answers_submission_id"),
                              ["submission_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_submission_answers_response_sha256"),
                              ["response_sha256"], unique=False)
    _backfill_answers()


def _backfill_answers() -> None:
    """The kept submissions' answers, from their evidence as submitted."""
    from pytest_req2rank.hub._duplicates import answer_hashes

    submissions = sa.table("submissions", sa.column("id", sa.Integer()),
                           sa.column("evidence", sa.JSON()))
    answers = sa.table("submission_answers", sa.column("submission_id", sa.Integer()),
                       sa.column("response_sha256", sa.String()))
    connection = op.get_bind()
    for row_id, evidence in connection.execute(sa.select(submissions.c.id,
                                                         submissions.c.evidence)).all():
        hashes = answer_hashes(evidence if isinstance(evidence, list) else [])
        if hashes:
            connection.execute(answers.insert(), [{"submission_id": row_id, "response_sha256": h}
                                                  for h in sorted(hashes)])


def downgrade() -> None:
    with op.batch_alter_table("submission_answers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_answers_response_sha256"))
        batch_op.drop_index(batch_op.f("ix_submission_answers_submission_id"))
    op.drop_table("submission_answers")
    with op.batch_alter_table("nonces", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_nonces_model"))
        batch_op.drop_column("declared")
        batch_op.drop_column("model")
