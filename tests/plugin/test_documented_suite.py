"""docs/suites.md's "Benchmarking your own suite" works exactly as written, in a directory
outside the repository that holds only the files the section shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

SUITES = (Path(__file__).parents[2] / "docs" / "suites.md").read_text(encoding="utf-8")
SECTION = SUITES.split("## Benchmarking your own suite", 1)[1].split("\n## ", 1)[0]
FILES = re.findall(r"~~~json\n(.*?)~~~", SECTION, re.DOTALL)
COMMANDS = [line.split("  #", 1)[0].strip()
            for block in re.findall(r"```bash\n(.*?)```", SECTION, re.DOTALL)
            for line in block.splitlines() if line.strip() and not line.startswith("#")]


def run_as_written(pytester: pytest.Pytester, command: str,
                   monkeypatch: pytest.MonkeyPatch) -> pytest.RunResult:
    words = shlex.split(command)
    while "=" in words[0] and not words[0].startswith("-"):
        name, _, value = words.pop(0).partition("=")
        monkeypatch.setenv(name, value)
    assert words[0] == "pytest", command
    return pytester.runpytest(*words[1:])


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "my_suite.jsonl").write_text(FILES[0], encoding="utf-8")
    return pytester


def test_the_section_shows_a_suite_a_script_and_two_commands() -> None:
    assert len(FILES) == 2 and len(COMMANDS) == 2


def test_the_suite_file_alone(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    assert sorted(p.name for p in project.path.iterdir()) == ["my_suite.jsonl"]
    result = run_as_written(project, COMMANDS[0], monkeypatch)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*req2rank summary*", "score: 100.0/100*"])


def test_the_scripted_model(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    (project.path / "script.json").write_text(FILES[1], encoding="utf-8")
    result = run_as_written(project, COMMANDS[1], monkeypatch)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["FAILED req2rank::test_task[[]my_suite/reverse[]]*wrong_answer*"])
