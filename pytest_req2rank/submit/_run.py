"""A run's way to the hub: a nonce before the first model call, the evidence chain as items
finish, the submission at the end; kept in the run's store so a failed one can be retried."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..draws import nonce_seed
from ..errors import Req2RankError
from ..evidence import EvidenceChain
from ..models import ItemResult
from ._client import HubClient, HubError
from ._tokens import stored_token

if TYPE_CHECKING:
    import httpx

    from ..report import ResultsDocument
    from ..store import Store

TOKEN_ENV = "R2R_HUB_TOKEN"
URL_ENV = "R2R_HUB_URL"


class SubmitError(Req2RankError):
    """A submission that cannot even be attempted (no hub, no token, no such run)."""


KEPT_STATUSES = ("accepted", "flagged", "unverified")
"""What a hub answers for a submission it kept: accepted (ranked once re-verified), held for
review, or kept but never ranked because the hub cannot re-verify it."""
_MEANINGS = {"accepted": "accepted: every check passed; ranked once the hub has replayed it",
             "unverified": "kept, not ranked: this hub cannot re-verify the run (its page "
                           "says why)"}


@dataclass(frozen=True)
class SubmissionOutcome:
    """What became of a submission: ``status`` is the hub's (``accepted``, ``flagged``,
    ``unverified``), ``refused`` (the hub said why in ``message``) or ``failed`` (no answer,
    429, 5xx: every thing is kept, ``retry`` is the command that sends it again)."""

    run_id: str
    status: str
    message: str
    url: str | None = None
    receipt: dict[str, Any] | None = None
    retry: str | None = None

    @property
    def kept(self) -> bool:
        """Whether the hub kept the submission (ranked or not)."""
        return self.status in KEPT_STATUSES


def hub_token(hub_url: str, given: str | None = None) -> str:
    """The token for ``hub_url``: ``given``, else ``$R2R_HUB_TOKEN``, else the one kept by login."""
    token = given or os.environ.get(TOKEN_ENV) or stored_token(hub_url)
    if not token:
        raise SubmitError(f"no token for the hub {hub_url}: pass --r2r-hub-token=TOKEN, set "
                          f"{TOKEN_ENV}, or sign in with `req2rank login` first")
    return token


def retry_command(db_path: Path, run_id: str, hub_url: str) -> str:
    """The command that sends a kept submission again."""
    return shlex.join(["req2rank", "submit", run_id, "--db", str(db_path), "--hub", hub_url])


class RunSubmission:
    """Started on the controller before the run is planned: fetches the nonce of a run of
    ``model`` with the ``declared`` settings (``plan.declared_settings``; raises
    :class:`~._client.HubError` when it cannot) and starts its evidence chain. The run's
    seed is :attr:`seed`, drawn from the nonce."""

    def __init__(self, hub_url: str, token: str, run_id: str, *, model: str,
                 declared: dict[str, Any], transport: httpx.BaseTransport | None = None) -> None:
        self.client = HubClient(hub_url, token, transport=transport)
        try:
            issued = self.client.nonce(model, declared)
        except HubError:
            self.client.close()
            raise
        self.run_id = run_id
        self.nonce = str(issued["nonce"])
        self.seed = nonce_seed(self.nonce)
        self.chain = EvidenceChain(self.nonce, run_id, str(issued["issued_at"]))

    def add(self, item: ItemResult) -> None:
        """Chain a finished item (called as the controller keeps it)."""
        self.chain.add(item)

    def finish(self, document: ResultsDocument, store: Store, db_path: Path) -> SubmissionOutcome:
        """Keep the submission in ``store``, send it, and keep what the hub answered."""
        results = document.model_dump(mode="json")
        for item in document.items:  # any the controller did not pass on as it kept them
            self.chain.add(item)
        self.chain.close(results["run"], results["summary"])
        payload = {"nonce": self.nonce, "results": results, "evidence": self.chain.entries}
        store.save_submission(self.run_id, hub_url=self.client.url, nonce=self.nonce,
                              payload=payload, status="pending", message="")
        try:
            return send(self.client, payload, store, db_path, self.run_id)
        finally:
            self.client.close()


def send(client: HubClient, payload: dict[str, Any], store: Store, db_path: Path,
         run_id: str) -> SubmissionOutcome:
    """Send a kept submission and record the hub's answer (or the failure) in ``store``."""
    try:
        reply = client.submit(payload)
    except HubError as exc:
        status = "failed" if exc.retryable else "refused"
        retry = retry_command(db_path, run_id, client.url) if exc.retryable else None
        store.save_submission(run_id, status=status, message=str(exc))
        return SubmissionOutcome(run_id, status, str(exc), retry=retry)
    status, url = str(reply.get("status", "")), reply.get("url")
    receipt = reply.get("receipt") if isinstance(reply.get("receipt"), dict) else None
    flags = reply.get("flags") or []
    message = _MEANINGS.get(status) or ("held for review, not ranked yet: " +
                                        "; ".join(map(str, flags)))
    store.save_submission(run_id, status=status, url=url, receipt=receipt, message=message)
    return SubmissionOutcome(run_id, status, message, url=url, receipt=receipt)


def submit_run(db_path: Path, run_id: str, hub_url: str | None = None, token: str | None = None,
               *, transport: httpx.BaseTransport | None = None) -> SubmissionOutcome:
    """Send (again) the submission a run made with ``--r2r-submit``, from its store
    ``db_path``: to ``hub_url`` (default: the hub it was made for) with ``token`` (default:
    ``$R2R_HUB_TOKEN`` or the one kept by login). A run without one cannot be submitted: its
    evidence chain starts from a nonce fetched before the run."""
    from ..store import Store, StoreUnusable, check_store  # sqlite-utils: only here

    db_path = Path(db_path)
    if not db_path.exists():
        raise SubmitError(f"no store at {db_path}; pass the --r2r-db (or --r2r-dir) of the run")
    try:
        check_store(db_path)
    except StoreUnusable as exc:
        raise SubmitError(str(exc)) from None
    store = Store(db_path)
    try:
        record = store.submission(run_id)
        if record is None or not record.get("payload"):
            if store.run(run_id) is None:
                raise SubmitError(f"no run {run_id!r} in {db_path}; `req2rank runs --db "
                                  f"{db_path}` lists its runs")
            raise SubmitError(f"run {run_id} in {db_path} was not run with --r2r-submit (a "
                              "submitted run fetches the hub's nonce before its first model "
                              "call); run it again with --r2r-submit=URL")
        if record["status"] in KEPT_STATUSES and not hub_url:
            return SubmissionOutcome(run_id, record["status"], "already submitted",
                                     url=record.get("url"), receipt=record.get("receipt"))
        url = (hub_url or record["hub_url"]).rstrip("/")
        with HubClient(url, hub_token(url, token), transport=transport) as client:
            return send(client, record["payload"], store, db_path, run_id)
    finally:
        store.close()
