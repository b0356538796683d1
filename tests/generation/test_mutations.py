"""The four mutations keep the reference and the hidden probes consistent with the text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.generation import (
    CATALOGUE,
    RequirementSpec,
    build_requirement,
    clash,
    instantiate,
    load_templates,
    plan_rounds,
    sandbox_grader,
)
from pytest_req2rank.generation._compose import compose
from pytest_req2rank.generation._mutations import JUDGE_ONLY_PREFIX, stack_constraints
from pytest_req2rank.generation._quality import ProbeGrader, reference_failures
from pytest_req2rank.sandbox import create_sandbox

TEMPLATES = load_templates()
BY_ID = {template.id: template for template in TEMPLATES}
PLAN = plan_rounds(TEMPLATES, rounds=100, seed=11)


@pytest.fixture(scope="module")
def grader() -> Iterator[ProbeGrader]:
    with create_sandbox("process") as sandbox:
        yield sandbox_grader(sandbox)


def _first(kind: str, *, also: str | None = None) -> RequirementSpec:
    return next(s for s in PLAN if kind in s.mutations and (also is None or also in s.mutations))


def _probe_backed() -> RequirementSpec:
    return next(s for s in PLAN if any(not CATALOGUE[c].judge_only for c in s.constraints))


def _cases() -> list[RequirementSpec]:
    picked = {_first("composition").item_id: _first("composition"),
              _first("domain-migration").item_id: _first("domain-migration"),
              _probe_backed().item_id: _probe_backed(),
              _first("composition", also="constraint-stacking").item_id:
                  _first("composition", also="constraint-stacking")}
    return list(picked.values())


@pytest.mark.parametrize("spec", _cases(), ids=lambda s: s.item_id)
def test_the_reference_passes_the_mutated_requirements_probes(spec: RequirementSpec,
                                                              grader: ProbeGrader) -> None:
    req = build_requirement(spec, TEMPLATES)
    assert reference_failures(req, grader) == []


def test_a_constraint_probe_fails_a_solution_that_breaks_the_constraint(grader: ProbeGrader) -> None:
    req = stack_constraints(instantiate(BY_ID["word-frequency"]), ["no-print", "no-dynamic-code"])
    path, source = next(iter(req.reference.items()))
    broken = {path: source + "\nprint('loaded')\n"}
    result = grader(broken, req.probes, timeout_s=10, setup=req.setup)
    failed = {t.name for t in result.tests if t.status != "success"}
    assert failed == {"constraint:no-print"}


def test_slot_filling_fills_text_reference_and_probes_alike() -> None:
    spec = next(s for s in PLAN if s.templates == ("rate-limiter",))
    req = build_requirement(spec, TEMPLATES)
    burst = spec.slots[0]["burst"]
    assert f"default {burst}" in req.description
    assert f"capacity={burst}" in req.reference["limiter.py"]
    probe = next(p for p in req.probes if p.name == "burst-up-to-capacity")
    assert probe.expect == [True] * burst + [False]


def test_composition_delivers_both_parts() -> None:
    spec = _first("composition")
    a, b = (BY_ID[i] for i in spec.templates)
    req = build_requirement(spec, TEMPLATES)
    parts = [instantiate(template, slots, domain=spec.domain)
             for template, slots in zip((a, b), spec.slots, strict=True)]
    assert req.reference == {**parts[0].reference, **parts[1].reference}
    assert len(req.reference) == len(parts[0].reference) + len(parts[1].reference)
    assert [p.name for p in req.probes] == [
        *(f"{part.template_id}:{p.name}" for part in parts for p in part.probes),
        *(f"constraint:{c}" for c in spec.constraints if not CATALOGUE[c].judge_only),
    ]
    assert [r.id for r in req.requirements] == [f"FR-{i}" for i in range(1, len(req.requirements) + 1)]
    assert parts[0].title in req.description and parts[1].title in req.description
    assert req.metadata.complexity == spec.complexity
    assert {a.complexity, b.complexity} <= {"C1", "C2"}
    assert spec.complexity == ("C2" if a.complexity == b.complexity == "C1" else "C3")
    assert req.template_id == f"{a.id}+{b.id}"


def test_only_compatible_templates_are_composed() -> None:
    for spec in PLAN:
        if len(spec.templates) == 2:
            assert clash(BY_ID[spec.templates[0]], BY_ID[spec.templates[1]]) is None, spec.item_id


def test_clashing_templates_are_refused_with_the_reason() -> None:
    limiter, words = BY_ID["rate-limiter"], BY_ID["word-frequency"]
    assert clash(limiter, limiter) == "a template cannot be composed with itself"
    assert "only ['C1', 'C2'] templates compose" in str(clash(limiter, BY_ID["inventory-orders-app"]))
    twin = words.model_copy(update={"id": "word-frequency-twin"})
    assert clash(words, twin) == "both deliver modules ['solution']"
    renamed = twin.model_copy(update={"reference": {"other.py": next(iter(words.reference.values()))},
                                      "setup": words.setup.replace("solution", "other")})
    assert str(clash(words, renamed)).startswith("both setups bind [")
    elsewhere = twin.model_copy(update={"domains": ("games",), "reference": {"x.py": "y = 1\n"},
                                        "setup": "import x\n"})
    assert clash(BY_ID["cart-pricing"], elsewhere) == "no domain in common"
    with pytest.raises(ValueError, match="both deliver"):
        compose((instantiate(words), instantiate(twin)), complexity="C2", skills=words.skills)


def test_stacked_constraints_are_tested_or_flagged_for_the_judges() -> None:
    base = instantiate(BY_ID["rate-limiter"])
    req = stack_constraints(base, ["short-functions", "type-hints"])
    assert req.constraints[-2:] == (CATALOGUE["short-functions"].text, CATALOGUE["type-hints"].text)
    assert [p.name for p in req.probes][len(base.probes):] == ["constraint:short-functions"]
    assert req.guidance.differentiators[-1] == JUDGE_ONLY_PREFIX + CATALOGUE["type-hints"].text
    assert CATALOGUE["type-hints"].judge_only and not CATALOGUE["short-functions"].judge_only


def test_a_constraint_the_reference_breaks_is_never_stacked() -> None:
    words = instantiate(BY_ID["word-frequency"])
    long_function = "def helper():\n" + "    x = 1\n" * 45
    base = words.model_copy(update={"reference": {**words.reference, "helper.py": long_function}})
    assert CATALOGUE["short-functions"].violations(base.reference) == [
        "helper.py:1: helper has 46 lines"]
    with pytest.raises(ValueError, match="the reference breaks constraint 'short-functions'"):
        stack_constraints(base, ["short-functions"])
    with pytest.raises(ValueError, match="unknown constraints"):
        stack_constraints(base, ["no-bugs"])
    for spec in PLAN:
        req = build_requirement(spec, TEMPLATES)
        for cid in spec.constraints:
            assert CATALOGUE[cid].violations(req.reference) == [], (spec.item_id, cid)


@pytest.mark.parametrize(
    ("cid", "bad", "good"),
    [
        ("no-dynamic-code", "import pickle\n", "import json\n"),
        ("no-dynamic-code", "def f(s):\n    return eval(s)\n", "def f(s):\n    return int(s)\n"),
        ("no-dynamic-code", "import os\nos.system('ls')\n", "import os\nos.getcwd\n"),
        ("no-print", "def f():\n    print(1)\n", "def f():\n    return 1\n"),
        ("short-functions", "def f():\n" + "    x = 1\n" * 40, "def f():\n" + "    x = 1\n" * 39),
        ("shallow-nesting",
         "def f(x):\n if x:\n  for a in x:\n   while a:\n    with a:\n     if a:\n      pass\n",
         ("def f(x):\n if x:\n  pass\n elif x:\n  pass\n elif x:\n  pass\n elif x:\n  pass\n"
          " elif x:\n  if x:\n   pass\n")),
        ("stdlib-only", "import requests\n", "import json\nfrom helpers import g\n"),
        ("import-side-effects", "x = 1\nmain()\n",
         "'''Doc.'''\nimport os\nX = 1\ndef main():\n    pass\nif __name__ == '__main__':\n    main()\n"),
    ],
)
def test_constraint_checkers_find_violations(cid: str, bad: str, good: str) -> None:
    constraint = CATALOGUE[cid]
    assert constraint.violations({"m.py": bad})
    assert constraint.violations({"m.py": good, "helpers.py": "def g():\n    return 1\n"}) == []


def test_stdlib_only_is_not_stacked_twice() -> None:
    assert not CATALOGUE["stdlib-only"].applies_to({"m.py": "import json\n"}, ("Standard library only.",))
    assert CATALOGUE["stdlib-only"].applies_to({"m.py": "import json\n"}, ())
