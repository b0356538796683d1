"""Reading template files: TOML → schema → semantic checks → :class:`Template`."""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError
from ..models import FunctionalRequirement, Guidance, Interface
from ._checks import semantic_errors
from ._schema import schema_errors
from ._template import ProbeSpec, SlotSpec, Template

TEMPLATE_SUFFIX = ".toml"
BUNDLED_LIBRARY = "templates"
"""The folder of this package that holds the template library it ships."""
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)$")
_TOML_END = "(at end of document)"


class TemplateError(ConfigurationError, ValueError):
    """One or more template files are wrong; ``errors`` holds one ``file: field: reason`` line each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


def bundled_library() -> Traversable:
    """The template library shipped inside the package (its data files, in any install)."""
    return files("pytest_req2rank.generation").joinpath(BUNDLED_LIBRARY)


def check_template_file(path: str | Path) -> list[str]:
    """Every mistake in one template file, as ``file: field: reason`` lines (empty when valid)."""
    return _parse(Path(path))[1]


def load_template(path: str | Path) -> Template:
    """Load and validate one template file; raises :class:`TemplateError` listing every mistake."""
    template, errors = _parse(Path(path))
    if template is None:
        raise TemplateError(errors)
    return template


def load_templates(directory: str | Path | Traversable | None = None) -> list[Template]:
    """Every template of a library directory (default: :func:`bundled_library`), sorted by id;
    raises one :class:`TemplateError` for all files."""
    library: Traversable = (bundled_library() if not directory
                            else Path(directory) if isinstance(directory, str) else directory)
    templates: list[Template] = []
    errors: list[str] = []
    for path in _template_files(library):
        template, found = _parse(path)
        errors += found
        if template is not None:
            templates.append(template)
    if errors:
        raise TemplateError(errors)
    return sorted(templates, key=lambda t: t.id)


def _template_files(library: Traversable) -> list[Traversable]:
    """The ``*.toml`` entries of a library directory, by name."""
    entries = (entry for entry in library.iterdir() if entry.name.endswith(TEMPLATE_SUFFIX))
    return sorted(entries, key=lambda entry: entry.name)


def _parse(path: Traversable) -> tuple[Template | None, list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: <file>: cannot be read ({exc})"]
    template, errors = _parse_text(str(path), path.name, text)
    return template, list(errors)


@lru_cache(maxsize=1024)
def _parse_text(path: str, name: str, text: str) -> tuple[Template | None, tuple[str, ...]]:
    """One file's template or its mistakes. Kept by content: a run's process loads its library
    more than once (the suite's draw, then the evaluator), and validating it takes longer
    than everything else that process does before its first item."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return None, (_toml_error(path, text, exc),)
    findings = schema_errors(data)
    if not findings:
        findings = semantic_errors(data)
        stem = name.removesuffix(TEMPLATE_SUFFIX)
        if data["id"] != stem:
            findings.insert(0, ("id", f"{data['id']!r} must match the file name {stem!r}"))
    if findings:
        return None, tuple(f"{path}: {where}: {reason}" for where, reason in findings)
    return _build(data, path), ()


def _toml_error(path: str, text: str, exc: tomllib.TOMLDecodeError) -> str:
    """``FILE:LINE:COLUMN: <toml>: what``, from the position tomllib puts in its message."""
    message = str(exc)
    located = _TOML_POSITION.search(message)
    if located:
        line, column = located.group(1), located.group(2)
    elif message.endswith(_TOML_END):
        lines = text.split("\n")
        line, column = str(len(lines)), str(len(lines[-1]) + 1)
    else:
        return f"{path}: <toml>: {message}"
    reason = message[: located.start() if located else -len(_TOML_END)].rstrip()
    return f"{path}:{line}:{column}: <toml>: {reason}"


def _build(data: dict[str, Any], path: str) -> Template:
    return Template(
        id=data["id"],
        title=data["title"],
        skills=tuple(data["skills"]),
        complexity=data["complexity"],
        domains=tuple(data["domains"]),
        scenarios=tuple(data.get("scenarios", ())),
        description=data["description"],
        slots=tuple(SlotSpec(name=name, **spec) for name, spec in data["slots"].items()),
        interface=Interface(**data["interface"]),
        requirements=tuple(FunctionalRequirement(**r) for r in data["requirements"]),
        constraints=tuple(data["constraints"]),
        deliverables=tuple(data["deliverables"]),
        guidance=Guidance(**data["guidance"]),
        reference=dict(data["reference"]),
        setup=data.get("setup", ""),
        probes=tuple(ProbeSpec(**p) for p in data["probes"]),
        path=path,
    )
