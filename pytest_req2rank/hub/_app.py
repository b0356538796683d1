"""The hub's web application: the JSON API (OpenAPI at /docs and /openapi.json) and the
pages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError
from slowapi import Limiter
from slowapi.errors import RateLimitExceeded
from slowapi.util import get_remote_address
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from .. import __version__
from ..draws import nonce_seed
from ._accounts import github_account, issue_token, revoke_tokens, user_of_github
from ._attempts import user_attempts
from ._board import (
    ComplexityLabel,
    Dimension,
    SortKey,
    Strategy,
    leaderboard,
    model_submissions,
    submission_details,
    submission_summary,
    unverified_runs,
)
from ._bodies import read_json_body
from ._config import HubConfig
from ._database import aware, make_engine, session_factory
from ._deps import Bearer, Db, Me, RowId
from ._errors import Refused
from ._headers import SecurityHeaders, script_policy
from ._limits import BodyLimit
from ._moderation import flag_submission, open_reports, resolve_flag, review_submission
from ._nonces import check_nonce_quota, issue_nonce
from ._page_errors import error_page, is_page
from ._pruning import PRUNE_EVERY_S, prune
from ._published import published_results
from ._receipts import Signer
from ._scheduler import ReverifySchedule
from ._submissions import kept_submission, submit


class NonceIn(BaseModel):
    model: str = Field(min_length=1, max_length=300,
                       description="The model the run benchmarks (as in --r2r-model)")
    settings: dict[str, Any] = Field(description="The run's suite and the settings that decide "
                                     "its items, grading and scores "
                                     "(pytest_req2rank.plan.declared_settings)")


class SubmissionIn(BaseModel):
    nonce: str = Field(description="The nonce fetched before the run (POST /api/nonces)")
    results: dict[str, Any] = Field(description="The run's results JSON, as the run wrote it")
    evidence: list[dict[str, Any]] = Field(description="The run's evidence chain, nonce first")


class GitHubTokenIn(BaseModel):
    access_token: str = Field(description="A GitHub OAuth token from the device flow",
                              max_length=255)


class FlagIn(BaseModel):
    reason: str = Field(description="What looks wrong with the submission")


class ResolutionIn(BaseModel):
    action: str = Field(description="uphold or dismiss (a report); accept or remove (a submission)")
    note: str = Field("", description="Why, kept in the submission's public history "
                      "(2000 characters at most)")


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _limiter(storage: str) -> Limiter:
    """Per-address limits counted in ``storage``; when a shared storage stops answering, in
    this process's memory until it answers again (the hub keeps serving)."""
    from limits.errors import ConfigurationError

    try:
        return Limiter(key_func=get_remote_address, storage_uri=storage,
                       in_memory_fallback_enabled=True)
    except ConfigurationError as exc:
        scheme = storage.partition("://")[0]  # the rest may hold a password
        reason = "unknown storage scheme" if "unknown storage scheme" in str(exc) else exc
        raise ValueError(f"R2R_HUB_RATE_STORAGE ({scheme}://...): {reason}; give memory:// or "
                         "redis://HOST:PORT (with `pip install 'limits[redis]'`)") from None


def create_app(config: HubConfig) -> FastAPI:
    """The hub over ``config``'s database (migrated already: ``req2rank-hub migrate``)."""
    config.check()
    engine = make_engine(config.database_url)
    sessions = session_factory(engine)
    signer = Signer(config.key_path)
    limiter = _limiter(config.rate_storage)
    public = limiter.limit(config.public_rate)
    per_address_submissions = limiter.limit(config.submit_rate)

    async def prune_now_and_then() -> None:
        while True:
            await asyncio.to_thread(_prune, sessions, config)
            await asyncio.sleep(PRUNE_EVERY_S)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        schedule = ReverifySchedule(sessions, config) if config.reverify_every_s > 0 else None
        if schedule:
            schedule.start()
        pruning = asyncio.create_task(prune_now_and_then())
        try:
            yield
        finally:
            pruning.cancel()
            with suppress(asyncio.CancelledError):
                await pruning
            if schedule:
                schedule.stop()

    app = FastAPI(title="req2rank hub", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,
                  description="Leaderboard of req2rank runs, verified before they are ranked")
    app.state.limiter = limiter
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.config = config

    @app.exception_handler(Refused)
    async def _refused(request: Request, exc: Refused) -> Response:
        if is_page(request):
            return await run_in_threadpool(error_page, request, exc)
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if is_page(request) and exc.status_code in (404, 405):
            code, what = (("not_found", "no such page") if exc.status_code == 404 else
                          ("not_allowed", f"{request.method} is not how this page is used"))
            return await run_in_threadpool(
                error_page, request, Refused(exc.status_code, code,
                                              f"{what}: {request.url.path}"))
        return await http_exception_handler(request, exc)

    @app.exception_handler(RateLimitExceeded)
    async def _rate(_request: Request, exc: RateLimitExceeded) -> JSONResponse:
        return _error(429, "rate_limited", f"too many requests from this address ({exc.detail}); "
                      "wait a minute and retry")

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        refusal = Refused(422, "invalid_request", f"{where or 'request'}: {first.get('msg')}")
        if is_page(request):
            return await run_in_threadpool(error_page, request, refusal)
        return _error(refusal.status, refusal.code, refusal.message)

    app.add_middleware(BodyLimit, limit=config.max_payload_bytes,
                       streamed=frozenset({"/api/submissions"}))
    app.add_middleware(SecurityHeaders)
    app.mount("/static", StaticFiles(directory=str(resources.files(__package__) / "static")),
              name="static")
    app.mount("/docs/assets", StaticFiles(directory=str(resources.files("fastapi_offline")
                                                       / "static")), name="docs-assets")
    docs_page = get_swagger_ui_html(
        openapi_url="/openapi.json", title="req2rank hub API",
        swagger_js_url="/docs/assets/swagger-ui-bundle.js",
        swagger_css_url="/docs/assets/swagger-ui.css", swagger_favicon_url="data:,").body
    docs_policy = script_policy(bytes(docs_page).decode())

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        """Swagger UI, served by the hub itself (no other site), its one inline script
        allowed by its hash."""
        return HTMLResponse(docs_page, headers={"Content-Security-Policy": docs_policy})

    def base_url(request: Request) -> str:
        return (config.public_url or str(request.base_url)).rstrip("/")

    @app.get("/healthz", tags=["hub"])
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/api/key", tags=["hub"])
    def public_key() -> dict[str, str]:
        """The Ed25519 public key that verifies acceptance receipts."""
        return {"algorithm": "Ed25519", "public_key": signer.public_key, "key_id": signer.key_id}

    @app.get("/api/auth/github", tags=["auth"])
    @public
    def github_sign_in(request: Request) -> dict[str, str]:
        """The GitHub OAuth app to sign in with (device flow); empty when not configured."""
        return {"client_id": config.github_client_id}

    @app.post("/api/tokens/github", status_code=201, tags=["auth"])
    @public
    def github_token(request: Request, body: GitHubTokenIn, session: Db) -> dict[str, str]:
        """Exchange a GitHub token (device flow) for a hub token of that GitHub user."""
        if not config.github_client_id:
            raise Refused(404, "no_github", "this hub has no GitHub sign-in; ask its admin for "
                          "a token (`req2rank-hub token create USER`)")
        user = user_of_github(session, github_account(body.access_token, config))
        return {"token": issue_token(session, user, config), "user": user.name}

    @app.delete("/api/tokens/current", tags=["auth"])
    def revoke_this_token(session: Db, user: Me, token: Bearer) -> dict[str, int]:
        """Revoke the token this request is signed with (sign out of the API)."""
        return {"revoked": revoke_tokens(session, user, only=token)}

    @app.delete("/api/tokens", tags=["auth"])
    def revoke_my_tokens(session: Db, user: Me) -> dict[str, int]:
        """Revoke every token of the signed-in user, this one included (a token leaked)."""
        return {"revoked": revoke_tokens(session, user)}

    @app.post("/api/nonces", status_code=201, tags=["submit"])
    def new_nonce(body: NonceIn, session: Db, user: Me) -> dict[str, Any]:
        """A single-use nonce for one run of ``model`` with the declared settings (an
        attempt, shown on the model's page whether submitted or not): fetch it before the
        run starts; the run's ``seed`` is drawn from it."""
        check_nonce_quota(session, user, config)
        nonce = issue_nonce(session, user, config, body.model, body.settings)
        return {"nonce": nonce.value, "seed": nonce_seed(nonce.value),
                "issued_at": aware(nonce.issued_at).isoformat(timespec="milliseconds"),
                "expires_at": aware(nonce.expires_at).isoformat(timespec="milliseconds")}

    @app.post("/api/submissions", status_code=201, tags=["submit"],
              responses={200: {"description": "A retry of a submission already kept"}},
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": SubmissionIn.model_json_schema()}}}})
    @per_address_submissions
    async def new_submission(request: Request, session: Db, user: Me) -> JSONResponse:
        """Verify a run and keep it: accepted (ranked) or flagged (held for review). The body
        may be gzip-compressed (``Content-Encoding: gzip``); it is read only once the token
        is known."""
        payload = await read_json_body(request, max_sent=config.max_payload_bytes,
                                       max_inflated=config.max_document_bytes)
        try:
            SubmissionIn.model_validate(payload)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors()) from None

        def keep() -> JSONResponse:
            submission, created = submit(session, user, payload, config, signer)
            reply = {**submission_summary(session, submission), "receipt": submission.receipt,
                     "url": f"{base_url(request)}/submissions/{submission.id}"}
            return JSONResponse(reply, status_code=201 if created else 200)

        return await run_in_threadpool(keep)

    @app.get("/api/leaderboard", tags=["read"])
    @public
    def board(request: Request, session: Db,
              strategy: Strategy = "pooled",
              suite: str | None = None,
              complexity: ComplexityLabel | None = None,
              skill: str | None = None,
              dimension: Dimension | None = None,
              sort: SortKey = "score",
              limit: Annotated[int, Query(ge=1, le=500)] = 100,
              offset: Annotated[int, Query(ge=0)] = 0) -> dict[str, Any]:
        """Models ranked by the pool of their verified submissions' item scores (``score``,
        its CI95 ``ci_low``/``ci_high``, ``rank`` shared by models the data cannot separate,
        ``rank_label`` such as ``1–3``, ``tied``, ``rank_interval``, ``diff_to_leader``;
        ``best`` shown, never ranked on; models with accepted submissions only come last,
        unranked); ``ranking``: paired or not (``basis`` says why), the groups, the seed;
        ``complexity``: runs of that one complexity only, or ``mixed`` ones; ``skill``:
        scored over the items of that skill only; ``dimension``: by that judge dimension's
        score, not the overall one. Each row: its latest submission's ``status``,
        ``pending`` (accepted, awaiting re-verification), ``held_out`` (the model's
        submissions out of the ranking by status), ``attempts`` and ``abandoned`` (nonces
        fetched for the model, and those never submitted)."""
        board = leaderboard(session, suite=suite, complexity=complexity,
                            skill=skill or None, dimension=dimension, sort=sort, limit=limit,
                            offset=offset)
        return {"strategy": strategy, "sort": sort, "skill": skill, "dimension": dimension,
                "ranking": board.ranking, "rows": board.rows}

    @app.get("/api/leaderboard/unverified", tags=["read"])
    @public
    def unverified(request: Request, session: Db,
                   limit: Annotated[int, Query(ge=1, le=500)] = 100,
                   offset: Annotated[int, Query(ge=0, le=10**9)] = 0) -> dict[str, Any]:
        """Runs kept but never ranked because the hub could not re-verify them (requirements
        from a generator, a template directory or a suite file of their own, N-version runs,
        runs beyond the hub's replay limits, models the hub does not call, replays that kept
        failing), newest first: each with its claimed score and ``why``."""
        return {"rows": unverified_runs(session, limit=limit, offset=offset)}

    @app.get("/api/models/{model:path}", tags=["read"])
    @public
    def model(request: Request, model: str, session: Db) -> dict[str, Any]:
        """Every submission of one model, newest first, and per user their attempts (nonces
        fetched for it): submitted, open, abandoned."""
        runs, attempts = model_submissions(session, model), user_attempts(session, model)
        if not runs and not attempts:
            raise Refused(404, "not_found", f"no submission of model {model!r}")
        return {"model": model, "submissions": runs, "attempts": attempts}

    @app.get("/api/submissions/{submission_id}", tags=["read"])
    @public
    def submission(request: Request, submission_id: RowId, session: Db) -> dict[str, Any]:
        """One submission: scores, status history, reports, receipt."""
        return submission_details(session, kept_submission(session, submission_id))

    @app.get("/api/submissions/{submission_id}/evidence", tags=["read"])
    @public
    def evidence(request: Request, submission_id: RowId, session: Db) -> dict[str, Any]:
        """The submitted results and evidence chain, for anyone to audit."""
        found = kept_submission(session, submission_id)
        return {"results": published_results(found.document), "evidence": found.evidence}

    @app.post("/api/submissions/{submission_id}/flags", status_code=201, tags=["moderation"])
    def report(submission_id: RowId, body: FlagIn, session: Db, user: Me) -> dict[str, Any]:
        """Report a submission (signed in; one open report per user and submission): with
        ``R2R_HUB_REPORTS_TO_HOLD`` open reports from as many users it leaves the ranking
        until an admin resolves them."""
        flag = flag_submission(session, user, submission_id, body.reason, config)
        return {"id": flag.id, "submission_id": submission_id,
                "status": kept_submission(session, submission_id).status,
                "open_reports": open_reports(session, submission_id),
                "reports_to_hold": config.reports_to_hold}

    @app.post("/api/admin/flags/{flag_id}/resolve", tags=["moderation"])
    def resolve(flag_id: RowId, body: ResolutionIn, session: Db, user: Me) -> dict[str, Any]:
        """An admin upholds (removes the submission) or dismisses a report."""
        resolved = resolve_flag(session, user, flag_id, body.action, body.note, config)
        return submission_details(session, resolved)

    @app.post("/api/admin/submissions/{submission_id}/review", tags=["moderation"])
    def review(submission_id: RowId, body: ResolutionIn, session: Db, user: Me) -> dict[str, Any]:
        """An admin accepts (ranks) or removes a submission the hub's checks flagged."""
        return submission_details(session, review_submission(session, user, submission_id,
                                                              body.action, body.note))

    from ._pages import pages  # Jinja2's templates: loaded with the app
    from ._signin_pages import signin_pages

    app.include_router(pages)
    app.include_router(signin_pages)
    return app


def _prune(sessions: Any, config: HubConfig) -> None:
    with sessions() as session:
        prune(session, config)
