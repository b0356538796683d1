"""The hub's tables (SQLAlchemy 2 declarative); the migrations create exactly these."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    github_id: Mapped[int | None] = mapped_column(BigInteger, unique=True, nullable=True)
    """GitHub's numeric id of the account that signs in as this user (a login can be renamed
    and taken by another account; the id cannot); ``None``: not bound to GitHub yet."""
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Token(Base):
    """An API token, kept as the SHA-256 of its text only."""

    __tablename__ = "tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """``None``: a token made before tokens expired, valid for the hub's token lifetime from
    ``created_at``."""
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class WebSession(Base):
    """A sign-in on the pages: the cookie's SHA-256 only, and the session's CSRF token."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    cookie_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class OAuthState(Base):
    """A sign-in started on the pages: its ``state`` (SHA-256 only), where to go after it,
    and when it was used (once)."""

    __tablename__ = "oauth_states"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    state_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    next_path: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Nonce(Base):
    """One attempt: a nonce issued to a user for a run of ``model`` with the ``declared``
    suite and settings (``plan.declared_settings``); the run's seed is drawn from
    ``value``."""

    __tablename__ = "nonces"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[str] = mapped_column(String(80), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    model: Mapped[str | None] = mapped_column(String(300), nullable=True, index=True)
    """None for the nonces issued before runs declared their model."""
    declared: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class Submission(Base):
    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("run_id", "nonce", name="uq_submissions_run_nonce"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    run_id: Mapped[str] = mapped_column(String(100))
    nonce: Mapped[str] = mapped_column(String(80))
    model: Mapped[str] = mapped_column(String(300), index=True)
    suite: Mapped[str] = mapped_column(String(300))
    complexity: Mapped[dict[str, Any]] = mapped_column(JSON)
    overall: Mapped[float] = mapped_column(Float)
    ci_low: Mapped[float | None] = mapped_column(Float, nullable=True)
    ci_high: Mapped[float | None] = mapped_column(Float, nullable=True)
    dimensions: Mapped[dict[str, Any]] = mapped_column(JSON)
    agreement: Mapped[str | None] = mapped_column(String(20), nullable=True)
    isolation: Mapped[str] = mapped_column(String(20))
    items: Mapped[int] = mapped_column(Integer)
    head: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20), index=True)
    flags_reasons: Mapped[list[Any]] = mapped_column(JSON)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    breakdown: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, deferred=True)
    """Scores per dimension and per skill with their CI95 (``_breakdown``): loaded only by
    the leaderboard's skill and dimension filters and a submission's details."""
    requirement_scores: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True,
                                                                      deferred=True)
    """Its item scores per requirement, from its evidence (``_item_scores``): what the
    leaderboard ranks it by, read once per leaderboard version."""
    # Large: loaded only when read (the leaderboard reads none of them).
    document: Mapped[dict[str, Any]] = mapped_column(JSON, deferred=True)
    evidence: Mapped[list[Any]] = mapped_column(JSON, deferred=True)
    receipt: Mapped[dict[str, Any]] = mapped_column(JSON, deferred=True)
    reverification: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True,
                                                                   deferred=True)
    """The last re-verification: its verdict and both replays' compared items."""
    reverify_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Re-verifications made; those that failed for the hub's own reasons are retried."""
    reverify_after: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                            nullable=True)
    """Not re-verified again before then (a backoff after a failure of the hub's)."""
    held_status: Mapped[str | None] = mapped_column(String(20), nullable=True)
    """The status users' reports took the submission out of (a dismissal restores it)."""


class SubmissionAnswer(Base):
    """One distinct answer of a kept submission (the SHA-256 of a response, as its evidence
    entry records it): how the hub finds a run submitted again with another's answers."""

    __tablename__ = "submission_answers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    response_sha256: Mapped[str] = mapped_column(String(64), index=True)


class StatusChange(Base):
    """A submission's status history: who or what changed it, when and why."""

    __tablename__ = "status_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(100))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Flag(Base):
    """A signed-in user's report on a submission, open until an admin resolves it; one open
    report per user and submission."""

    __tablename__ = "flags"
    __table_args__ = (Index("uq_flags_open_per_user", "submission_id", "user_id", unique=True,
                            sqlite_where=text("resolution IS NULL"),
                            postgresql_where=text("resolution IS NULL")),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    resolution: Mapped[str | None] = mapped_column(String(20), nullable=True)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AdminAction(Base):
    """What an admin did, logged."""

    __tablename__ = "admin_actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    admin_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(100))
    note: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Refusal(Base):
    """A submission the hub refused, logged: the user, when, which check and why."""

    __tablename__ = "refusals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    code: Mapped[str] = mapped_column(String(40))
    message: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
