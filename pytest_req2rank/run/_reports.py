"""The controller's reports after the results JSON: the HTML report, the Markdown report (and
the GitHub step summary), the stratified Q&A samples and the Weights & Biases run. Each reads the results
document; one that fails is noted and the others still run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..report import ResultsDocument
    from ..settings import Settings


def write_reports(document: ResultsDocument, settings: Settings, *, results: Path,
                  qa_log: Path, html: Path | None, baseline: ResultsDocument | None,
                  errors: dict[str, str]) -> list[str]:
    """Write the reports the settings ask for; return the summary's lines about them.
    ``results`` and ``qa_log``: where the run wrote them (the report goes beside the first,
    the samples beside the second); ``html``: the HTML report's path, if one is asked for;
    ``baseline``: the ``--r2r-baseline`` run. A report that
    cannot be written is added to ``errors`` (exit code 7); W&B failing is a warning (it
    mirrors what the run keeps itself)."""
    from ..report import (  # loaded already: the results JSON was written
        SAMPLES_FILE,
        WandbUnavailable,
        append_step_summary,
        log_to_wandb,
        render_markdown,
        report_path,
        sample_records,
        write_samples,
    )

    if html is not None:
        _write_html(document, html, errors)
    lines: list[str] = []
    markdown = render_markdown(document, baseline)
    # Results that could not be written where asked went elsewhere: the report goes to the
    # run's directory, with the Q&A log.
    report = report_path(qa_log.with_name("results.json") if "results" in errors else results)
    try:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(markdown, encoding="utf-8")
        lines.append(f"markdown report: {report}")
    except OSError as exc:
        errors["markdown"] = f"could not write the Markdown report {report} ({_reason(exc)})"
    try:
        summary = append_step_summary(markdown)
    except OSError as exc:
        errors["step summary"] = f"could not append to GITHUB_STEP_SUMMARY ({_reason(exc)})"
    else:
        if summary is not None:
            lines.append(f"markdown report appended to the GitHub step summary {summary}")
    samples = document.summary.qa_samples
    if samples is not None:
        path = qa_log.with_name(SAMPLES_FILE)
        records = sample_records(document.items, samples, temperature=settings.temperature,
                                 max_new_tokens=settings.max_tokens)
        try:
            write_samples(path, records)
            lines.append(f"q&a samples: {path} ({len(records)} items, {samples.per_dataset} "
                         "per dataset, stratified by final status)")
        except OSError as exc:
            errors["q&a samples"] = f"could not write the Q&A samples {path} ({_reason(exc)})"
    if settings.wandb is not None:
        try:
            where = log_to_wandb(document, settings.wandb,
                                 results=None if "results" in errors else results,
                                 directory=settings.dir)
            lines.append(f"wandb: {where}")
        except WandbUnavailable as exc:
            lines.append(f"warning: wandb: {exc}")
    return lines


def _write_html(document: ResultsDocument, path: Path, errors: dict[str, str]) -> None:
    """Write the HTML report; a failure costs the report, not the run (noted in ``errors``)."""
    from ..report import write_html  # loaded already: the results JSON was written

    try:
        write_html(document.model_dump(mode="json"), path)
    except OSError as exc:
        errors["html"] = f"could not write the HTML report {path} ({_reason(exc)})"
    except Exception as exc:  # noqa: BLE001 - the run's results are written: keep the run
        errors["html"] = (
            f"could not render the HTML report {path} ({type(exc).__name__}: {exc}) - "
            "please report this as a bug; the results JSON has everything it would show")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
