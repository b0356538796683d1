"""The dynamic suite: requirements drawn from the template library, fresh for every run seed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..models import ItemId, Task
from ._errors import SuiteError, TemplateLibraryError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from ..generation import Template

DATASET = "dynamic"


class DynamicOptions(BaseModel):
    """How to draw the dynamic suite (from ``--r2r-rounds``, ``--r2r-complexity``, …)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rounds: int = 1
    complexities: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    templates_dir: Path | None = None
    """The template library; ``None``: the one shipped in the package."""


def load_dynamic(options: DynamicOptions, *, seed: int) -> list[Task]:
    """One task per drawn round; the same seed and options always give the same tasks.

    No model is called here: a task carries its plan entry (``spec``), from which
    any process rebuilds the requirement.
    """
    from ..generation import build_requirement, plan_rounds  # heavy; static suites skip it

    templates = _template_library(options.templates_dir)
    try:
        specs = plan_rounds(
            templates, rounds=options.rounds, seed=seed,
            complexities=options.complexities or None, skills=options.skills or None,
            domains=options.domains or None,
        )
    except ValueError as exc:
        raise SuiteError(f"dynamic: {exc}") from None
    by_id = {t.id: t for t in templates}
    tasks = []
    for spec in specs:
        requirement = build_requirement(spec, by_id)
        tasks.append(Task(
            item_id=spec.item_id,
            dataset=DATASET,
            task_id=ItemId.parse(spec.item_id).task,
            form="requirement",
            prompt=requirement.description,
            reference="",
            reference_files=requirement.reference,
            spec=spec.model_dump(mode="json"),
            source=f"templates:{requirement.template_id}",
        ))
    return tasks


def _template_library(directory: Path | None) -> list[Template]:
    """Every template of the library; :class:`TemplateLibraryError` (one line) when it cannot
    be used."""
    from ..generation import TemplateError, bundled_library, load_templates  # as above

    library: Traversable = directory or bundled_library()
    fix = "point --r2r-templates at a directory of template files (*.toml)"
    if not library.is_dir():
        problem = "not a directory" if library.is_file() else "no such template library"
        raise TemplateLibraryError(f"{library}: {problem}; {fix}")
    try:
        templates = load_templates(library)
    except TemplateError as exc:
        more = len(exc.errors) - 1
        also = f" (and {more} more problem{'s' * (more > 1)} in {library})" if more else ""
        raise TemplateLibraryError(
            f"{exc.errors[0]}{also}; fix the template file, or point --r2r-templates at another "
            "library"
        ) from None
    if not templates:
        raise TemplateLibraryError(f"{library}: no template files (*.toml) in the library; {fix}")
    return templates
