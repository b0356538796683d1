"""A broken library or catalogue file gives one line naming the file, the field and the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_req2rank.nversion import load_common_modes, load_library
from pytest_req2rank.nversion._common_mode import bundled_catalogue
from pytest_req2rank.nversion._library import LibraryError, bundled_library, check_library_file

VALID = bundled_library().joinpath("HumanEval-2.toml").read_text(encoding="utf-8")

# (replace this, with that) in a valid file → the expected "field: reason" fragment
MISTAKES = {
    "toml-syntax": ('family = "arithmetic"', 'family = "arithmetic'),
    "wrong-version": ("version = 1", "version = 7"),
    "version-as-string": ("version = 1", 'version = "1"'),
    "missing-family": ('family = "arithmetic"\n', ""),
    "unknown-family": ('family = "arithmetic"', 'family = "geometry"'),
    "unknown-field": ('family = "arithmetic"', 'family = "arithmetic"\nauthor = "me"'),
    "task-id-form": ('task_id = "HumanEval/2"', 'task_id = "MBPP/2"'),
    "task-id-vs-file": ('task_id = "HumanEval/2"', 'task_id = "HumanEval/3"'),
    "name-not-slug": ('name = "modulo-one"', 'name = "Modulo One"'),
    "duplicate-name": ('name = "math-modf"', 'name = "modulo-one"'),
    "duplicate-kind": ('paradigm = "library decomposition"\ndata_structure = "tuple from math.modf"',
                       'paradigm = "modular arithmetic"\ndata_structure = "float"'),
    "code-syntax": ("return number % 1.0", "return number %% 1.0"),
    "wrong-entry-point": ("def truncate_number(number: float) -> float:\n    return number % 1.0",
                          "def truncate(number: float) -> float:\n    return number % 1.0"),
    "third-party-import": ("import math\n", "import numpy as math\n"),
    "code-not-string": ("code = '''\nimport math", "code = 3\nstray = '''\nimport math"),
}
EXPECTED = {
    "toml-syntax": r"<toml>: ",
    "wrong-version": r"version: 7 is not the library version 1",
    "version-as-string": r"version: Input should be a valid integer",
    "missing-family": r"family: Field required",
    "unknown-family": r"family: 'geometry' is not one of arithmetic, ",
    "unknown-field": r"author: Extra inputs are not permitted",
    "task-id-form": r"task_id: 'MBPP/2' is not of the form",
    "task-id-vs-file": r"task_id: 'HumanEval/3' belongs in 'HumanEval-3.toml'",
    "name-not-slug": r"implementations\[0\]\.name: 'Modulo One' is not a lower-case",
    "duplicate-name": r"implementations\[2\]\.name: 'modulo-one' is used twice",
    "duplicate-kind": r"implementations\[2\]\.paradigm: paradigm 'modular arithmetic' with",
    "code-syntax": r"implementations\[0\]\.code: does not parse \(line 2: ",
    "wrong-entry-point": r"implementations\[0\]\.code: defines no top-level function "
                         r"'truncate_number'",
    "third-party-import": r"implementations\[2\]\.code: imports 'numpy', which is not in the",
    "code-not-string": r"implementations\[2\]\.code: Input should be a valid string",
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_one_line_naming_file_and_field(tmp_path: Path, mistake: str) -> None:
    old, new = MISTAKES[mistake]
    assert old in VALID, mistake
    path = tmp_path / "HumanEval-2.toml"
    path.write_text(VALID.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(LibraryError) as info:
        load_library(tmp_path)
    lines = [line for line in info.value.errors if re.search(EXPECTED[mistake], line)]
    assert lines, info.value.errors
    assert all("\n" not in line and line.startswith(f"{path}") for line in info.value.errors)
    assert check_library_file(path) == info.value.errors


def test_valid_file_and_too_few_versions(tmp_path: Path) -> None:
    path = tmp_path / "HumanEval-2.toml"
    path.write_text(VALID, encoding="utf-8")
    (task,) = load_library(tmp_path)
    assert task.task_id == "HumanEval/2" and task.path == str(path)
    assert check_library_file(path) == []
    cut = VALID[: VALID.index("[[implementations]]\nname = \"math-modf\"")]
    path.write_text(cut, encoding="utf-8")
    assert check_library_file(path) == [
        f"{path}: implementations: 2 given, at least 3 needed"]


def test_an_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(LibraryError, match="no .toml file found"):
        load_library(tmp_path)


CATALOGUE = bundled_catalogue().read_text(encoding="utf-8")


@pytest.mark.parametrize(("old", "new", "expected"), [
    ('kind = "tie-breaking"', 'kind = "tie-braking"',
     r"failures\[5\]\.kind: 'tie-braking' has no transformation"),
    ('kind = "sign-handling"', 'kind = "case-sensitivity"',
     r"failures: kind 'case-sensitivity' is listed twice"),
    ('families = ["list-search", "sorting"]', 'families = ["list-search", "graphs"]',
     r"failures\[5\]\.families: 'graphs' is not one of"),
    ('title = "Case sensitivity"\n', "", r"failures\[7\]\.title: missing"),
    ('title = "Case sensitivity"', 'title = "Case"\ncolour = "red"',
     r"failures\[7\]\.colour: unknown field"),
])
def test_catalogue_errors_name_file_and_field(tmp_path: Path, old: str, new: str,
                                              expected: str) -> None:
    assert old in CATALOGUE
    path = tmp_path / "failures.toml"
    path.write_text(CATALOGUE.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(LibraryError) as info:
        load_common_modes(path)
    assert any(re.search(expected, line) for line in info.value.errors), info.value.errors
    assert all("\n" not in line and line.startswith(str(path)) for line in info.value.errors)


def test_a_kind_without_entry_is_an_error(tmp_path: Path) -> None:
    start = CATALOGUE.index('[[failures]]\nkind = "whitespace-split"')
    path = tmp_path / "failures.toml"
    path.write_text(CATALOGUE[:start], encoding="utf-8")
    with pytest.raises(LibraryError, match="'whitespace-split' has a transformation but no entry"):
        load_common_modes(path)


REQUIREMENT = bundled_library().joinpath("Requirement-cart-pricing.toml").read_text(
    encoding="utf-8")

# (replace this, with that) in a valid requirement task → the expected "field: reason" line
REQUIREMENT_MISTAKES = {
    "missing-test": (REQUIREMENT[REQUIREMENT.index("test = '''"):
                                 REQUIREMENT.index("[[implementations]]")], "",
                     r"test: missing: a Requirement/\.\.\. task carries its own definition"),
    "template-vs-id": ('template = "cart-pricing"', 'template = "cart"',
                       r"template: 'cart' does not match the task id"),
    "reference-entry-point": ("def price_cart(lines, coupon=None, tax_percent=7):",
                              "def price(lines, coupon=None, tax_percent=7):",
                              r"reference: defines no top-level function 'price_cart'"),
    "test-without-check": ("def check(candidate):", "def verify(candidate):",
                           r"test: defines no top-level function 'check'"),
}


@pytest.mark.parametrize("mistake", sorted(REQUIREMENT_MISTAKES))
def test_requirement_task_mistakes(tmp_path: Path, mistake: str) -> None:
    old, new, expected = REQUIREMENT_MISTAKES[mistake]
    assert old in REQUIREMENT, mistake
    path = tmp_path / "Requirement-cart-pricing.toml"
    path.write_text(REQUIREMENT.replace(old, new, 1), encoding="utf-8")
    errors = check_library_file(path)
    assert any(re.search(expected, line) for line in errors), errors
    assert all(line.startswith(f"{path}: ") and "\n" not in line for line in errors)


def test_a_humaneval_task_does_not_carry_a_definition(tmp_path: Path) -> None:
    path = tmp_path / "HumanEval-2.toml"
    path.write_text(VALID.replace('family = "arithmetic"',
                                  'family = "arithmetic"\nprompt = "def f(): ..."', 1),
                    encoding="utf-8")
    assert check_library_file(path) == [(
        f"{path}: prompt: only a Requirement/... task carries its own definition; "
        "HumanEval's is used")]


def test_humaneval_tasks_sort_before_requirement_tasks(tmp_path: Path) -> None:
    (tmp_path / "HumanEval-2.toml").write_text(VALID, encoding="utf-8")
    (tmp_path / "Requirement-cart-pricing.toml").write_text(REQUIREMENT, encoding="utf-8")
    assert [t.task_id for t in load_library(tmp_path)] == [
        "HumanEval/2", "Requirement/cart-pricing"]
