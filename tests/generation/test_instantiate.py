"""Slot filling: assignments, substitution in text, reference and probes, and templated expectations."""

from __future__ import annotations

import re

import pytest

from pytest_req2rank.generation import assignments, instantiate
from pytest_req2rank.generation._instantiate import assignment_count
from pytest_req2rank.generation._loader import load_template
from pytest_req2rank.generation._templating import (
    ExpressionError,
    evaluate_expect,
    render_code,
    render_prose,
)


@pytest.fixture
def template(write_template):
    return load_template(write_template())


def test_assignments_enumerate_free_slots_and_follow_ties(template) -> None:
    assert assignment_count(template) == 6
    every = assignments(template)
    assert len(every) == 6
    assert every[0] == {"func": "add_n", "n": 1, "word": "one"}
    assert {(a["n"], a["word"]) for a in every} == {(1, "one"), (2, "two"), (3, "three")}


def test_sampled_assignments_are_deterministic_and_keep_the_first(template) -> None:
    sample = assignments(template, limit=3)
    assert len(sample) == 3
    assert sample[0] == assignments(template)[0]
    assert sample == assignments(template, limit=3)
    assert all(a in assignments(template) for a in sample)
    assert len({tuple(sorted(a.items())) for a in sample}) == 3


def test_instantiate_fills_every_field(template) -> None:
    req = instantiate(template, {"func": "plus_n", "n": 3}, domain="general-utilities")
    assert req.id == "tiny[plus_n-3]"
    assert req.title == "Add 3 to numbers"
    assert "`plus_n(x)` returning x + 3" in req.description
    assert "{not a slot}" in req.description
    assert req.interface.text.endswith("# adds three")
    assert req.requirements[0].acceptance == "plus_n(0) == 3"
    assert req.reference == {"tiny.py": "def plus_n(x):\n    return x + 3\n"}
    assert req.setup == "from tiny import plus_n"
    assert req.slots == {"func": "plus_n", "n": 3, "word": "three"}
    assert req.metadata.domain == "general-utilities"


def test_probe_expectations_follow_the_slots(template) -> None:
    probes = {p.name: p for p in instantiate(template, {"n": 2}).probes}
    assert probes["zero"].expect == 2 and probes["zero"].code == "result = add_n(0)"
    assert probes["pair"].code == "result = [add_n(10), 'two']"
    assert probes["pair"].expect == [12, "two"]
    assert probes["label"].expect == {"sum for two": [2, "n=2"]}
    assert probes["bad-type"].raises == "TypeError" and probes["bad-type"].priority == "should"


def test_brief_hides_tests_reference_and_guidance(template) -> None:
    brief = instantiate(template).brief()
    assert {"probes", "reference", "guidance", "setup", "slots"}.isdisjoint(brief)
    assert brief["requirements"][0]["id"] == "FR-1"


@pytest.mark.parametrize(
    ("assignment", "message"),
    [({"m": 1}, "has no slots ['m']"), ({"n": 7}, "not an allowed value"),
     ({"n": True}, "not an allowed value"), ({"n": 1, "word": "two"}, "is tied and must be 'one'")],
)
def test_bad_assignments_are_rejected(template, assignment, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        instantiate(template, assignment)


def test_domain_must_fit_the_template(template) -> None:
    with pytest.raises(ValueError, match="does not fit domain 'games'"):
        instantiate(template, domain="games")


def test_code_rendering_leaves_python_braces_alone() -> None:
    code = "d = {'a': {x}}\nf'{y}' + {n!r}"
    assert render_code(code, {"n": "t"}) == "d = {'a': {x}}\nf'{y}' + 't'"
    assert render_prose("{{literal}} {n}", {"n": 4}) == "{literal} 4"


def test_expect_expressions_are_plain_json_and_safe() -> None:
    assert evaluate_expect("[(i, n) for i in range(n)]", {"n": 2}) == [[0, 2], [1, 2]]
    assert evaluate_expect("None", {}) is None
    with pytest.raises(ExpressionError, match="not plain JSON"):
        evaluate_expect("{1, 2}", {})
    with pytest.raises(ExpressionError, match="undeclared names"):
        evaluate_expect("m + 1", {"n": 1})
    with pytest.raises(ExpressionError, match="not allowed"):
        evaluate_expect("(lambda: 1)()", {})
