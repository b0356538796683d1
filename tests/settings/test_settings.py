"""Settings: precedence CLI > env > ini > default, and one-line errors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from pydantic import ValidationError

from pytest_req2rank.options import OPTIONS
from pytest_req2rank.settings import PathBases, Settings, SettingsError, resolve_settings


def resolve(
    cli: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    ini: Mapping[str, str] | None = None,
    deprecated: list[str] | None = None,
) -> Settings:
    """Settings from values keyed by setting name; deprecation notes go to ``deprecated``
    (a test that gives a former name passes a list)."""
    cli, ini = cli or {}, ini or {}
    notes = deprecated if deprecated is not None else []
    settings = resolve_settings(cli.get, env or {}, ini.get, deprecated=notes.append)
    assert deprecated is not None or not notes, notes
    return settings


def test_defaults() -> None:
    settings = resolve()
    assert str(settings.model) == "r2r/reference"
    assert settings.model_is_default
    assert str(settings.suite) == "dynamic"
    assert settings.rounds == 10
    assert settings.seed is None
    assert settings.sandbox_timeout_s == 5.0


def test_precedence_cli_over_env_over_ini() -> None:
    assert resolve(cli={"seed": "1"}, env={"R2R_SEED": "2"}, ini={"seed": "3"}).seed == 1
    assert resolve(env={"R2R_SEED": "2"}, ini={"seed": "3"}).seed == 2
    assert resolve(ini={"seed": "3"}).seed == 3


def test_explicit_model_is_not_default() -> None:
    settings = resolve(env={"R2R_MODEL": "gpt-4o"})
    assert str(settings.model) == "gpt-4o"
    assert not settings.model_is_default


def test_spellings_derive_from_field() -> None:
    spec = next(s for s in OPTIONS if s.field == "sandbox_timeout_ms")
    assert (spec.cli, spec.ini, spec.env) == (
        "--r2r-sandbox-timeout-ms", "r2r_sandbox_timeout_ms", "R2R_SANDBOX_TIMEOUT_MS",
    )


def test_no_spelling_belongs_to_two_settings() -> None:
    names = [name for spec in OPTIONS for name in spec.names]
    assert len(names) == len(set(names))
    fields = {spec.field for spec in OPTIONS}
    assert fields <= set(Settings.model_fields) | {"json"}
    assert not fields & {name for spec in OPTIONS for name in spec.former}


# --- former names: the template library was the "seeds" option -----------------------------

@pytest.mark.parametrize(("source", "note"), [
    ("cli", "--r2r-seeds is deprecated; use --r2r-templates"),
    ("env", "environment variable R2R_SEEDS is deprecated; use R2R_TEMPLATES"),
    ("ini", "ini option r2r_seeds is deprecated; use r2r_templates"),
])
def test_a_former_name_still_sets_the_setting_and_says_what_to_use(source: str,
                                                                     note: str) -> None:
    notes: list[str] = []
    settings = resolve(cli={"seeds": "/lib"} if source == "cli" else None,
                       env={"R2R_SEEDS": "/lib"} if source == "env" else None,
                       ini={"seeds": "/lib"} if source == "ini" else None, deprecated=notes)
    assert settings.templates == Path("/lib") and "templates" in settings.explicit
    assert notes == [note]


def test_the_current_name_wins_and_every_former_spelling_given_is_reported() -> None:
    notes: list[str] = []
    settings = resolve(cli={"templates": "/new", "seeds": "/old"}, env={"R2R_SEEDS": "/env"},
                       deprecated=notes)
    assert settings.templates == Path("/new")
    assert notes == ["--r2r-seeds is deprecated; use --r2r-templates",
                     "environment variable R2R_SEEDS is deprecated; use R2R_TEMPLATES"]
    notes.clear()
    assert resolve(env={"R2R_SEEDS": "/env"}, ini={"templates": "/ini"},
                   deprecated=notes).templates == Path("/env")  # CLI > env > ini, any spelling
    assert notes == ["environment variable R2R_SEEDS is deprecated; use R2R_TEMPLATES"]


def test_an_empty_former_spelling_names_itself() -> None:
    with pytest.raises(SettingsError) as info:
        resolve(env={"R2R_SEEDS": ""}, deprecated=[])
    assert str(info.value) == (
        "--r2r-templates (from environment variable R2R_SEEDS): the variable is set but empty; "
        "give a value, or unset R2R_SEEDS for the default (the library shipped in the package)")


def test_without_a_listener_a_former_name_is_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="^--r2r-seeds is deprecated; use --r2r-templates$"):
        settings = resolve_settings({"seeds": "/lib"}.get, {}, {}.get)
    assert settings.templates == Path("/lib")


@pytest.mark.parametrize(
    ("cli", "env", "message"),
    [
        ({"concurrency": "abc"}, {}, "--r2r-concurrency: expected an integer, got 'abc'"),
        ({}, {"R2R_CONCURRENCY": "0"}, "--r2r-concurrency (from environment variable R2R_CONCURRENCY): must be greater than or equal to 1"),
        ({"suite": "nope"}, {}, "--r2r-suite: unknown suite 'nope'; allowed: dynamic, humaneval, jsonl:PATH"),
        ({"suite": "jsonl:"}, {}, "--r2r-suite: jsonl needs a path: jsonl:PATH"),
        ({"model": "r2r/oracle"}, {}, "--r2r-model: unknown built-in model 'r2r/oracle'"),
        ({"model": "r2r/samples:"}, {}, "--r2r-model: r2r/samples needs a path"),
        ({"api_base": "localhost:8000"}, {}, "--r2r-api-base: must be an http(s) URL"),
        ({"timeout": "soon"}, {}, "--r2r-timeout: expected a number, got 'soon'"),
        ({"sandbox": "vm"}, {}, "--r2r-sandbox: unknown sandbox 'vm'; allowed: "),
        ({"sandbox_timeout_ms": "5"}, {}, "--r2r-sandbox-timeout-ms: must be greater than or equal to 100"),
    ],
)
def test_bad_values_give_one_line_errors(
    cli: dict[str, str], env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError) as excinfo:
        resolve(cli=cli, env=env)
    text = str(excinfo.value)
    assert text.startswith(message)
    assert "\n" not in text


def test_ini_source_is_named() -> None:
    with pytest.raises(SettingsError, match=r"^--r2r-sample \(from ini option r2r_sample\)"):
        resolve(ini={"sample": "many"})


def test_settings_are_frozen() -> None:
    settings = resolve()
    with pytest.raises(ValidationError, match="frozen_instance"):
        settings.seed = 3  # type: ignore[misc]


def test_seed_design_sandbox_enabled_means_docker() -> None:
    settings = resolve(env={"R2R_SANDBOX_ENABLED": "true"})
    assert str(settings.sandbox) == "docker"
    assert resolve(env={"R2R_SANDBOX_ENABLED": "true"}, cli={"sandbox": "process"}).sandbox.text == "process"
    assert resolve(cli={"sandbox": "process:unshare"}).sandbox.process_mode == "unshare"


def test_the_panel_defaults_by_suite_and_can_be_named_or_switched_off() -> None:
    assert resolve().panel() == ("r2r/static",)
    assert resolve(cli={"suite": "humaneval"}).panel() == ()
    named = resolve(cli={"suite": "humaneval", "judges": "r2r/static, openai/gpt-4o"})
    assert named.panel() == ("r2r/static", "openai/gpt-4o")
    assert resolve(env={"R2R_JUDGES": "none"}).panel() == ()
    assert resolve(env={"R2R_EXCLUDE_SELF_JUDGING": "true"}).exclude_self_judging
    weighted = resolve(cli={"weights": "functionality=40,quality=20,logic=20,security=10,"
                                       "engineering=10", "execution_weight": "0.5"})
    assert weighted.weights == {"functionality": 0.4, "quality": 0.2, "logic": 0.2,
                                "security": 0.1, "engineering": 0.1}
    assert weighted.execution_weight == 0.5


@pytest.mark.parametrize(("cli", "message"), [
    ({"judges": "a,,b"}, "--r2r-judges: expected comma-separated model strings"),
    ({"judges": "fake/a,fake/a"}, "--r2r-judges: lists fake/a more than once"),
    ({"judges": "r2r/samples:x.jsonl"}, "--r2r-judges: r2r/samples:x.jsonl cannot judge"),
    ({"execution_weight": "-0.1"}, "--r2r-execution-weight: must be greater than or equal to 0"),
    ({"weights": "functionality=100"}, "--r2r-weights: weights lacks dimension(s) quality"),
])
def test_bad_panel_settings_name_the_option(cli: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as error:
        resolve(cli=cli)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(("source", "message"), [
    ("cli", "--r2r-model: the value is empty (an unset shell variable?); give a value, or leave "
            "the option out for the default (r2r/reference)"),
    ("env", "--r2r-model (from environment variable R2R_MODEL): the variable is set but empty; "
            "give a value, or unset R2R_MODEL for the default (r2r/reference)"),
    ("ini", "--r2r-model (from ini option r2r_model): the value is empty; give a value, or "
            "remove the line for the default (r2r/reference)"),
])
@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_value_is_an_error_not_the_default(source: str, message: str, empty: str) -> None:
    """``--r2r-model=$MODEL`` with MODEL unset must not benchmark the default model."""
    given = {"model": empty}
    with pytest.raises(SettingsError) as info:
        resolve(cli=given if source == "cli" else None,
                env={"R2R_MODEL": empty} if source == "env" else None,
                ini=given if source == "ini" else None)
    assert str(info.value) == message


def test_an_empty_value_under_a_higher_source_is_not_looked_at() -> None:
    assert resolve(cli={"seed": "3"}, env={"R2R_SEED": ""}).seed == 3


def resolve_from(tmp_path: Path, cli: Mapping[str, str] | None = None,
                 env: Mapping[str, str] | None = None,
                 ini: Mapping[str, str] | None = None) -> Settings:
    cli, ini = cli or {}, ini or {}
    bases = PathBases(given=tmp_path / "cwd", ini=tmp_path / "inidir", default=tmp_path / "root")
    return resolve_settings(cli.get, env or {}, ini.get, bases)


def test_relative_paths_start_where_they_were_given(tmp_path: Path) -> None:
    """pytest's rule: the command line and the environment from the invocation directory,
    an ini file from its directory, the defaults under the rootdir."""
    given = resolve_from(tmp_path, cli={"json": "out/r.json", "suite": "jsonl:s.jsonl",
                                        "model": "r2r/samples:../samples.jsonl"},
                         env={"R2R_DB": "x.db", "R2R_BASELINE": "./b.json"},
                         ini={"templates": "lib", "dir": "outputs", "db": "ignored.db"})
    cwd, inidir = tmp_path / "cwd", tmp_path / "inidir"
    assert given.json_path == cwd / "out" / "r.json"
    assert str(given.suite) == f"jsonl:{cwd / 's.jsonl'}"
    assert str(given.model) == f"r2r/samples:{tmp_path / 'samples.jsonl'}"
    assert (given.db, given.baseline) == (cwd / "x.db", cwd / "b.json")
    assert (given.templates, given.dir) == (inidir / "lib", inidir / "outputs")
    assert given.suite.dataset == "s"
    defaults = resolve_from(tmp_path)
    assert defaults.dir == tmp_path / "root" / ".req2rank"
    assert (defaults.db, defaults.json_path, defaults.templates) == (None, None, None)
    assert "dir" not in defaults.explicit


def test_absolute_home_and_pathless_values_are_kept(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    settings = resolve_from(tmp_path, cli={"db": "/abs/x.db", "json": "~/r.json",
                                           "suite": "humaneval", "model": "gpt-4o"})
    assert (settings.db, settings.json_path) == (Path("/abs/x.db"), tmp_path / "home" / "r.json")
    assert (str(settings.suite), str(settings.model)) == ("humaneval", "gpt-4o")
    with pytest.raises(SettingsError, match="^--r2r-suite: jsonl needs a path"):
        resolve_from(tmp_path, cli={"suite": "jsonl:"})


def test_settings_cross_to_xdist_workers_unchanged(tmp_path: Path) -> None:
    """The controller ships the settings to its workers as JSON by alias (``workerinput``)."""
    settings = resolve_from(tmp_path, cli={"json": "r.json", "judges": "none",
                                           "weights": "functionality=40,quality=20,logic=20,"
                                                      "security=10,engineering=10"})
    assert Settings.model_validate_json(settings.model_dump_json(by_alias=True)) == settings


@pytest.mark.parametrize(("cli", "env", "message"), [
    ({"samples_per_task": "0"}, {}, "--r2r-samples-per-task: must be greater than or equal to 1, got '0'"),
    ({"samples_per_task": "x"}, {}, "--r2r-samples-per-task: expected an integer, got 'x'"),
    ({"samples_per_task": "2.5"}, {}, "--r2r-samples-per-task: expected an integer, got '2.5'"),
    ({}, {"R2R_SAMPLES_PER_TASK": "-1"}, ("--r2r-samples-per-task (from environment variable "
                                          "R2R_SAMPLES_PER_TASK): must be greater than or equal "
                                          "to 1, got '-1'")),
])
def test_bad_sample_counts_are_one_line_errors(
    cli: dict[str, str], env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError) as excinfo:
        resolve(cli=cli, env=env)
    assert str(excinfo.value) == message


def test_samples_per_task_and_the_identical_samples_warning() -> None:
    assert resolve().samples_per_task == 1
    assert resolve(ini={"samples_per_task": "4"}).samples_per_task == 4
    cold = resolve(cli={"samples_per_task": "3"})
    assert "3 samples per task at temperature 0" in (cold.identical_samples_warning(3) or "")
    assert cold.identical_samples_warning(1) is None
    assert resolve(cli={"samples_per_task": "3", "temperature": "0.8"}
                   ).identical_samples_warning(3) is None
    assert resolve(cli={"model": "r2r/samples:s.jsonl"}).identical_samples_warning(5) is None


@pytest.mark.parametrize(("cli", "env", "ini", "expected"), [
    ({"html": "true"}, {}, {}, True),  # --r2r-html alone
    ({}, {"R2R_HTML": "ON"}, {}, True),
    ({}, {"R2R_HTML": "off"}, {"html": "report.html"}, False),
    ({"html": "out/r.html"}, {}, {}, "cwd/out/r.html"),
    ({}, {}, {"html": "reports/run.htm"}, "inidir/reports/run.htm"),
    ({}, {}, {}, False),
])
def test_the_html_report_is_a_switch_or_a_path(tmp_path: Path, cli: dict[str, str],
                                                env: dict[str, str], ini: dict[str, str],
                                                expected: bool | str) -> None:
    settings = resolve_from(tmp_path, cli=cli, env=env, ini=ini)
    assert settings.html == (tmp_path / expected if isinstance(expected, str) else expected)
    assert Settings.model_validate_json(settings.model_dump_json(by_alias=True)) == settings


def test_an_html_report_path_must_name_an_html_file(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"^--r2r-html: expected a file name ending in "
                       r"\.html, got '.*/tests' \(a test path right after --r2r-html\? "
                       r"write --r2r-html=PATH, or put it last\)$"):
        resolve_from(tmp_path, cli={"html": "tests"})


def test_the_html_report_goes_next_to_the_results_by_default(tmp_path: Path) -> None:
    from pytest_req2rank.run import OutputPaths

    def paths(**cli: str) -> OutputPaths:
        return OutputPaths(resolve_from(tmp_path, cli=cli), "RUN")

    assert paths().html is None
    assert paths(html="true").html == tmp_path / "root/.req2rank/runs/RUN/report.html"
    assert paths(html="true", json="out/x.json").html == tmp_path / "cwd/out/x.html"
    assert paths(html="true", dir="o", json="a.html").html == tmp_path / "cwd/a.html.html"
    assert paths(html="r.html", json="x.json").html == tmp_path / "cwd/r.html"


def test_several_models_split_with_the_first_as_the_model() -> None:
    def given(values: dict[str, str]) -> Settings:
        return resolve_settings(values.get, {}, lambda name: None)

    several = given({"model": "r2r/reference, r2r/degraded:0.5", "suite": "humaneval"})
    assert several.model.text == "r2r/reference"
    assert [m.text for m in several.models] == ["r2r/reference", "r2r/degraded:0.5"]
    assert several.models_text == "r2r/reference,r2r/degraded:0.5"
    assert several.model_dump(mode="json")["models"] == ["r2r/reference", "r2r/degraded:0.5"]
    assert Settings.model_validate_json(several.model_dump_json(by_alias=True)) == several
    one = given({"model": "r2r/degraded:0.5"})
    assert one.models == () and one.ranked_models == (one.model,)
    assert "models" not in one.model_dump(mode="json")
    with pytest.raises(SettingsError, match=r"^--r2r-model: expected models separated by commas"):
        given({"model": "a,,b"})
    with pytest.raises(SettingsError, match=r"^--r2r-model: .* without --r2r-baseline"):
        given({"model": "a,b", "baseline": "x.json"})
    with pytest.raises(SettingsError, match=r"^--r2r-model: r2r/samples:.* rank it alone"):
        given({"model": "a,r2r/samples:x.jsonl"})
