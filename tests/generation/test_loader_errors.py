"""Every kind of template-file mistake gives one line naming the file, the field and the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_req2rank.generation import TemplateError, load_templates
from pytest_req2rank.generation._loader import check_template_file, load_template


def test_valid_template_loads(write_template) -> None:
    template = load_template(write_template())
    assert template.id == "tiny"
    assert [s.name for s in template.slots] == ["func", "n", "word"]
    assert template.slot("word").tied_to == "n"
    assert template.probes[3].raises == "TypeError"
    assert template.requirements[0].priority == "must"


# (replace this, with that) in the valid template → expected "field: reason" fragment
MISTAKES = {
    "toml-syntax": ('id = "tiny"', 'id = "tiny'),
    "missing-field": ('title = "Add {n} to numbers"\n', ""),
    "bad-priority": ('priority = "must"', 'priority = "must-have"'),
    "bad-complexity": ('complexity = "C1"', 'complexity = "C5"'),
    "unknown-skill": ('skills = ["algorithm"]', 'skills = ["algorithm", "ui"]'),
    "unknown-domain": ('domains = ["general-utilities"]', 'domains = ["space"]'),
    "scenario-of-other-domain": ('scenarios = ["general-utilities/caching"]',
                                 'scenarios = ["games/save-system"]'),
    "undeclared-slot": ('text = "Add {n}."', 'text = "Add {m}."'),
    "unused-slot": ('[slots.n]', '[slots.unused]\ntype = "int"\nvalues = [1]\n\n[slots.n]'),
    "slot-value-type": ('values = [1, 2, 3]', 'values = [1, "2", 3]'),
    "bad-identifier": ('values = ["add_n", "plus_n"]', 'values = ["add_n", "plus n"]'),
    "tied-length": ('values = ["one", "two", "three"]', 'values = ["one", "two"]'),
    "tied-unknown": ('tied_to = "n"', 'tied_to = "m"'),
    "duplicate-probe": ('name = "pair"', 'name = "zero"'),
    "two-expectations": ('raises = "TypeError"', 'raises = "TypeError"\nexpect = 1'),
    "unknown-requirement": ('requirement = "FR-1"', 'requirement = "FR-9"'),
    "unsafe-expect-expr": ('expect_expr = "[10 + n, word]"', 'expect_expr = "().__class__"'),
    "undeclared-expr-name": ('expect_expr = "[10 + n, word]"', 'expect_expr = "[10 + m, word]"'),
    "not-json": ('expect = "{n}"', "expect = 1979-05-27"),
    "does-not-compile": ("    return x + {n}", "    return x +"),
    "shadowed-slot": ("    return x + {n}", "    n = {n}\n    return x + n"),
    "id-not-file-name": ('id = "tiny"', 'id = "other"'),
    "bad-reference-path": ('"tiny.py" = """', '"../tiny.py" = """'),
    "too-few-probes": ('[[probes]]\nname = "label"', ""),
    "key-after-table": ('constraints = ["Standard library only."]\n', ""),
}
EXPECTED = {
    "toml-syntax": "<toml>:",
    "missing-field": "<top>: 'title' is missing",
    "bad-priority": "requirements[0].priority: 'must-have' is not one of",
    "bad-complexity": "complexity: 'C5' is not one of",
    "unknown-skill": "skills[1]: 'ui' is not a skill",
    "unknown-domain": "domains[0]: 'space' is not a domain",
    "scenario-of-other-domain": "scenarios[0]: 'games/save-system' belongs to a domain",
    "undeclared-slot": "requirements[0].text: uses undeclared slot {m}",
    "unused-slot": "slots.unused: is declared but never used",
    "slot-value-type": "slots.n.values[1]: '2' is not of slot type int",
    "bad-identifier": "slots.func.values[1]: 'plus n' is not a Python identifier",
    "tied-length": "slots.word.values: needs as many values as 'n' (3)",
    "tied-unknown": "slots.word.tied_to: 'm' is not another slot",
    "duplicate-probe": "probes[1].name: 'zero' is used more than once",
    "two-expectations": "probes[3]: needs exactly one of 'expect', 'expect_expr' or 'raises'",
    "unknown-requirement": "probes[0].requirement: 'FR-9' is not a requirement id",
    "unsafe-expect-expr": "probes[1].expect_expr: reads the private attribute",
    "undeclared-expr-name": "probes[1].expect_expr: reads 'm', which is not a declared slot",
    "not-json": "probes[0].expect: is not plain JSON data",
    "does-not-compile": 'reference["tiny.py"]: does not compile with slots',
    "shadowed-slot": "reference[\"tiny.py\"]: slot 'n' is also a Python name",
    "id-not-file-name": "id: 'other' must match the file name 'tiny'",
    "bad-reference-path": 'reference["../tiny.py"]: must be a relative path',
    "too-few-probes": "probes: needs at least 3 entries",
    "key-after-table": "keys must come before the first [table]",
}


@pytest.mark.parametrize("kind", sorted(MISTAKES))
def test_each_mistake_is_one_clear_line(write_template, template_text: str, kind: str) -> None:
    old, new = MISTAKES[kind]
    assert old in template_text, kind
    text = template_text.replace(old, new, 1)
    if kind == "too-few-probes":
        text = template_text[: template_text.index(old)]
    if kind == "key-after-table":
        text += '\nconstraints = ["Standard library only."]\n'
    path = write_template(text)
    with pytest.raises(TemplateError) as info:
        load_template(path)
    lines = info.value.errors
    matching = [line for line in lines if EXPECTED[kind] in line]
    assert matching, f"{kind}: {lines}"
    assert all(re.match(rf"{re.escape(str(path))}(:\d+:\d+)?: ", line) and "\n" not in line
               for line in lines)


def test_unsafe_expression_forms_are_rejected(write_template, template_text: str) -> None:
    for expr, reason in (("(lambda: 1)()", "Lambda"), ("[x for x in ().__class__]", "private"),
                         ("1 +", "not a Python expression")):
        text = template_text.replace('"[10 + n, word]"', repr(expr).replace("'", '"'), 1)
        errors = check_template_file(write_template(text))
        assert any(reason in e for e in errors), (expr, errors)


def test_library_reports_every_bad_file(tmp_path: Path, template_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(template_text, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(template_text.replace('id = "tiny"', 'id = "bad"')
                                       .replace('priority = "must"', 'priority = "urgent"'))
    (tmp_path / "worse.toml").write_text("id = ", encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        load_templates(tmp_path)
    files = {re.sub(r":\d+:\d+$", "", line.split(": ", 1)[0]) for line in info.value.errors}
    assert files == {str(tmp_path / "bad.toml"), str(tmp_path / "worse.toml")}
    (tmp_path / "bad.toml").unlink()
    (tmp_path / "worse.toml").unlink()
    assert [s.id for s in load_templates(tmp_path)] == ["tiny"]


def test_a_file_changed_since_it_was_loaded_is_read_as_it_is_now(write_template,
                                                                  template_text: str) -> None:
    path = write_template()
    assert load_template(path).title == "Add {n} to numbers"
    write_template(template_text.replace('title = "Add {n} to numbers"', 'title = "Add {n}"'))
    assert load_template(path).title == "Add {n}"
    write_template(template_text.replace('priority = "must"', 'priority = "urgent"'))
    found = check_template_file(path)
    assert found and any("priority" in line for line in found)
    found.clear()  # a caller's list is its own
    assert check_template_file(path)
    with pytest.raises(TemplateError, match="priority"):
        load_template(path)
    write_template()
    assert check_template_file(path) == []
