"""Reading seed files: TOML → schema → semantic checks → :class:`Seed`."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError
from ..models import FunctionalRequirement, Guidance, Interface
from ._checks import semantic_errors
from ._models import ProbeSpec, Seed, SlotSpec
from ._schema import schema_errors

SEED_SUFFIX = ".toml"
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)$")
_TOML_END = "(at end of document)"


class SeedError(ConfigurationError, ValueError):
    """One or more seed files are wrong; ``errors`` holds one ``file: field: reason`` line each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


def default_seed_dir() -> Path:
    """The library in the checkout: ``seeds/`` next to the package."""
    return Path(__file__).resolve().parents[2] / "seeds"


def check_seed_file(path: str | Path) -> list[str]:
    """Every mistake in one seed file, as ``file: field: reason`` lines (empty when valid)."""
    return _parse(Path(path))[1]


def load_seed(path: str | Path) -> Seed:
    """Load and validate one seed file; raises :class:`SeedError` listing every mistake."""
    seed, errors = _parse(Path(path))
    if seed is None:
        raise SeedError(errors)
    return seed


def load_seeds(directory: str | Path | None = None) -> list[Seed]:
    """Every seed of a library directory, sorted by id; raises one :class:`SeedError` for all files."""
    directory = Path(directory) if directory else default_seed_dir()
    seeds: list[Seed] = []
    errors: list[str] = []
    for path in sorted(directory.glob(f"*{SEED_SUFFIX}")):
        seed, found = _parse(path)
        errors += found
        if seed is not None:
            seeds.append(seed)
    if errors:
        raise SeedError(errors)
    return sorted(seeds, key=lambda s: s.id)


def _parse(path: Path) -> tuple[Seed | None, list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return None, [_toml_error(path, text, exc)]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: <file>: cannot be read ({exc})"]
    findings = schema_errors(data)
    if not findings:
        findings = semantic_errors(data)
        if data["id"] != path.stem:
            findings.insert(0, ("id", f"{data['id']!r} must match the file name {path.stem!r}"))
    if findings:
        return None, [f"{path}: {where}: {reason}" for where, reason in findings]
    return _build(data, path), []


def _toml_error(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> str:
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


def _build(data: dict[str, Any], path: Path) -> Seed:
    return Seed(
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
        path=str(path),
    )
