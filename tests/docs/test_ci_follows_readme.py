"""CI (.ci/run) installs exactly as the README says and runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_test_commands() -> list[str]:
    """The commands of the README's test line (the one that checks the layer contract)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [line] = [line for block in re.findall(r"```bash\n(.*?)```", readme, re.DOTALL)
              for line in block.splitlines() if "lint-imports" in line]
    return [command.strip() for command in line.split("&&")]


def ci_commands() -> list[str]:
    """The commands .ci/run runs, without `|| exit 1`, comments and `python -m`."""
    commands = []
    for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        command = line.split(" #", 1)[0].split("||", 1)[0].strip()
        if command and not command.startswith("#"):
            commands.append(command.removeprefix("python -m "))
    return commands


def test_ci_runs_the_readme_commands_in_order() -> None:
    readme = readme_test_commands()
    assert readme == ["pip install -e '.[dev]'", "lint-imports", "ruff check pytest_req2rank tests",
                      "mypy pytest_req2rank", "pytest tests -n 2"]
    ci = ci_commands()
    assert all(command in ci for command in readme), (readme, ci)
    assert [ci.index(command) for command in readme] == sorted(ci.index(c) for c in readme)
