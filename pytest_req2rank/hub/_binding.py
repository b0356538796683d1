"""Holding a submission to what binds it: the chain's run entry (the run's header and
summary), the nonce's seed, what the run declared when it fetched its nonce, and the header
fields the items themselves show (judges, generator, N-version, suite kind).

A modified client can re-chain anything; these checks make the header fields the hub relies
on either recomputed from something the submitter cannot choose (the seed from the nonce,
the judges from the items' verdicts) or fixed before the run began (the declared settings).
"""

from __future__ import annotations

from typing import Any

from ..draws import nonce_seed
from ..evidence import verify_run
from ..judging import same_family
from ..models import INFRA_STATUSES, STATIC_JUDGE, SuiteSpec
from ..plan import declared_settings
from ..report import ResultsDocument
from ._errors import Refused
from ._tables import Nonce


def check_bound(evidence: list[dict[str, Any]], data: dict[str, Any], document: ResultsDocument,
                nonce: Nonce) -> None:
    """Every check of this module, in order; run after the chain and its items verified."""
    check_run_entry(evidence, data)
    check_declared(nonce, document)
    check_seed(document, nonce.value)
    check_judges(document)
    check_settings(document)


def check_run_entry(evidence: list[dict[str, Any]], data: dict[str, Any]) -> None:
    """The chain's run entry binds the results' ``run`` header and ``summary`` as received."""
    mismatch = verify_run(evidence, data["run"], data["summary"])
    if mismatch is not None:
        raise Refused(422, "evidence_mismatch", f"evidence {mismatch}")


def check_seed(document: ResultsDocument, nonce: str) -> None:
    """The run's seed is the one its nonce draws: the hub picks the requirements."""
    expected = nonce_seed(nonce)
    if document.run.seed != expected:
        raise Refused(422, "seed_mismatch", f"run.seed is {document.run.seed}, but a run "
                      f"submitted with nonce {nonce!r} is seeded {expected} (drawn from the "
                      "nonce, so the hub picks the requirements); run it again with "
                      "--r2r-submit and without --r2r-seed")


def check_declared(nonce: Nonce, document: ResultsDocument) -> None:
    """The run is of the model, suite and settings it declared when it fetched its nonce."""
    run = document.run
    if nonce.model is not None and nonce.model != run.model:
        raise Refused(422, "nonce_mismatch", f"the run is of model {run.model!r}, its nonce "
                      f"{nonce.value!r} was fetched for {nonce.model!r}; a nonce is one run "
                      "of the model it was fetched for")
    if nonce.declared is None:
        return
    found = declared_settings(run.suite, run.settings)
    differing = [name for name in sorted(found.keys() | nonce.declared.keys())
                 if found.get(name) != nonce.declared.get(name)]
    if differing:
        what = ", ".join(f"{name} {found.get(name)!r} (declared {nonce.declared.get(name)!r})"
                         for name in differing[:4])
        raise Refused(422, "nonce_mismatch", f"the run's settings differ from those it declared "
                      f"when it fetched nonce {nonce.value!r}: {what}; a run keeps the "
                      "settings it was started with")


def judging_panel(document: ResultsDocument) -> list[str]:
    """The judges that judge each item of the run: its panel without the judges of the
    target's family when the run excludes them (unless that would leave none)."""
    run = document.run
    flagged = [(judge, same_family(run.model, judge)) for judge in run.judges]
    if run.settings.get("exclude_self_judging") and not all(flag for _, flag in flagged):
        return [judge for judge, flag in flagged if not flag]
    return list(run.judges)


def check_judges(document: ResultsDocument) -> None:
    """``run.judges`` is the panel the items' verdicts show, and what the run's judge
    setting gives (the replays decide from it whether scores are compared)."""
    run = document.run
    declared = run.settings.get("judges")
    default = [STATIC_JUDGE] if _suite_kind(run.suite) == "dynamic" else []
    expected = list(declared) if isinstance(declared, list) else default
    if list(run.judges) != expected:
        raise Refused(422, "header_mismatch", f"run.judges is {run.judges}, but the run's "
                      f"settings give the panel {expected}")
    panel = judging_panel(document)
    for item in document.items:
        verdicts = [verdict.judge for verdict in item.judges]
        # The panel judges every item with code that did not fail for infrastructure (an
        # N-version run's items: none).
        judged = bool(panel) and bool(item.code) and item.status not in INFRA_STATUSES \
            and item.nversion is None
        if verdicts != (panel if judged else []) or (item.panel is not None) != judged:
            raise Refused(422, "header_mismatch", f"run.judges is {run.judges}, but item "
                          f"{item.item_id} was judged by {verdicts or 'no judge'}; the header "
                          "names the judges the items' verdicts show")


def check_settings(document: ResultsDocument) -> None:
    """The settings that make a run unreplayable agree with its items: a generator with the
    items' provenance, an N-version run with their N-version records, a built-in suite's
    kind with the items' kind."""
    run, items = document.run, document.items
    settings = run.settings
    elaborated = [item.item_id for item in items if item.provenance is not None]
    if bool(settings.get("generator")) != bool(elaborated):
        said = (f"settings.generator is {settings.get('generator')!r}" if settings.get("generator")
                else "the run names no generator")
        shown = (f"item {elaborated[0]} has a generator's provenance" if elaborated
                 else "no item has a generator's provenance")
        raise Refused(422, "header_mismatch", f"{said}, but {shown}")
    versions = [item.item_id for item in items if item.nversion is not None]
    if bool(settings.get("nversion")) != bool(versions):
        shown = f"item {versions[0]} is an N-version item" if versions else "no item is one"
        raise Refused(422, "header_mismatch", f"settings.nversion is "
                      f"{settings.get('nversion')!r}, but {shown}")
    kind = _suite_kind(run.suite)
    if versions or kind not in ("dynamic", "humaneval"):  # a JSONL suite holds either kind
        return
    other = next((item for item in items if (item.kind == "dynamic") != (kind == "dynamic")),
                 None)
    if other is not None:
        raise Refused(422, "header_mismatch", f"run.suite is {run.suite!r}, but item "
                      f"{other.item_id} is a {other.kind} item")


def _suite_kind(suite: str) -> str | None:
    try:
        return SuiteSpec.parse(suite).kind
    except ValueError:
        return None
