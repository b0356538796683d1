"""The checks of the pipeline's answers: JSON shape, plans without code, compiling code."""

from __future__ import annotations

import pytest

from pytest_req2rank.nversion import AnswerError
from pytest_req2rank.nversion._answers import (
    Solution,
    Thoughts,
    code_lines,
    parse_code,
    parse_json,
)

from ._scripts import ADD3


def test_json_answers_bare_or_fenced_and_their_shape() -> None:
    text = '{"thoughts": [{"name": "a", "paradigm": "p", "idea": "i"}]}'
    assert parse_json(text, Thoughts).thoughts[0].name == "a"
    assert parse_json(f"Here:\n```json\n{text}\n```", Thoughts).thoughts[0].idea == "i"
    with pytest.raises(AnswerError, match="not JSON"):
        parse_json("Sure, here are ideas", Thoughts)
    with pytest.raises(AnswerError, match=r"thoughts\.0\.idea: Field required"):
        parse_json('{"thoughts": [{"name": "a", "paradigm": "p"}]}', Thoughts)


@pytest.mark.parametrize(("step", "code"), [
    ("Sort the list, then scan neighbours", False),
    ("Keep a running total of the values", False),
    ("Return the result", False),
    ("heap", False),
    ("total = a + b", True),
    ("for x in xs:", True),
    ("return sorted(xs)[0]", True),
    ("sorted(xs, key=abs)", True),
    ("```python\nx = 1\n```", True),
])
def test_plans_may_not_hold_code(step: str, code: bool) -> None:
    plan = Solution(name="p", data_structures=["list"], steps=[step])
    assert bool(code_lines(plan)) is code


def test_code_answers_compile_and_define_the_function() -> None:
    answer = "```python\ndef add3(a, b):\n    return a + b + 3\n```"
    assert "return a + b + 3" in parse_code(answer, ADD3)
    with pytest.raises(AnswerError, match="holds no code"):
        parse_code("I would add them.", ADD3)
    with pytest.raises(AnswerError, match="does not compile: line 2"):
        parse_code("```python\ndef add3(a, b):\n    return a +\n```", ADD3)
    with pytest.raises(AnswerError, match=r"does not define the function add3\(\)"):
        parse_code("```python\ndef add(a, b):\n    return a + b\n```", ADD3)
