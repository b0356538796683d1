"""Decomposing ``check(candidate)``, evaluating asserts on the host, and decoding plain data."""

from __future__ import annotations

import ast
import math

import pytest

from pytest_req2rank.execution._ast_tools import segment, split_lines
from pytest_req2rank.execution._compare import NotPlain, decode_plain
from pytest_req2rank.execution._decompose import (
    decompose,
)
from pytest_req2rank.execution._hosteval import HostEvalError, evaluate, loose_equal
from pytest_req2rank.suites import load_humaneval


def _check(*lines: str, prelude: str = "") -> str:
    return prelude + "def check(candidate):\n" + "".join(f"    {line}\n" for line in lines)


@pytest.mark.parametrize("line", [
    "assert candidate(1) == 2",
    "assert abs(candidate(1.0) - 0.5) < 1e-6",
    "assert candidate([1]) is True",
    "assert candidate('x') is not None",
    "assert not candidate(3)",
    "assert candidate(3)",
    "assert math.isclose(candidate(2), 4.0, rel_tol=1e-9)",
    "assert set(candidate([3, 1])) == {1, 3}",
    "assert sorted(candidate('ba')) == ['a', 'b']",
    "assert tuple(candidate([1, 2])) == (1, 2)",
    "assert candidate(1)[0] == 'a'",
    "assert candidate(2) in [1, 2, 3]",
    "assert len(candidate('ab')) == 2, 'message'",
    "assert True",
], ids=lambda line: line[7:40])
def test_common_assert_shapes_are_host_decided(line: str) -> None:
    check = decompose(_check(line, prelude="import math\n"))
    assert not check.why_not and check.host_tests == {0}, check.steps


def test_calls_of_the_entry_point_by_name_are_candidate_calls() -> None:
    check = decompose(_check("assert f(1) == 2", "assert candidate(2) == f(2)"), "f")
    assert check.entry == "f" and check.host_tests == {0, 1}
    assert all("__r2r_call__(" in step.source and "f(" not in step.source.replace(
        "__r2r_call__(", "") for step in check.steps)
    shadowed = decompose("def f(x):\n    return x\n\n" + _check("assert candidate(f(1)) == 2"), "f")
    assert shadowed.entry == "" and "f(1)" in shadowed.steps[0].source


def test_loops_over_inputs_are_one_host_decided_test() -> None:
    check = decompose(_check("for x, y in [(1, 2), (3, 4)]:", "    assert candidate(x) == y",
                             "assert candidate(0) == 1"))
    assert check.tests == 2 and check.host_tests == {0, 1}
    assert "__r2r_leaf__(" in check.steps[0].source  # y is recorded, not evaluated on the host


@pytest.mark.parametrize(("lines", "host"), [
    (("x = candidate(1)", "assert x == 2", "assert candidate(2) == 3"), set()),
    (("assert candidate(1) == 2", "x = candidate(1)", "assert x + 1 == 3"), {0}),
    (("assert helper(candidate(1)) == 2",), set()),
    (("str = 'a'", "assert str(candidate(1)) == '1'"), set()),
    (("assert candidate(candidate(1)) == 3",), set()),
    (("assert all(candidate(x) for x in [1, 2])",), set()),
    (("assert candidate(1) is 1",), set()),
    (("assert candidate(1) == 1 and True",), set()),
], ids=["setup-call", "tainted-later", "test-helper", "shadowed-builtin", "nested-call",
        "generator", "is-int", "boolop"])
def test_other_shapes_go_to_the_checker(lines: tuple[str, ...], host: set[int]) -> None:
    check = decompose(_check(*lines, prelude="def helper(x):\n    return x\n"))
    assert not check.why_not and check.host_tests == host


@pytest.mark.parametrize("lines", [
    ("assert helper(candidate)",), ("assert candidate(*[1]) == 1",), ("f = candidate",),
    ("xs = [2, 1]", "assert candidate(xs) is None", "assert xs == [1, 2]"),
], ids=["as-argument", "starred", "assigned", "mutation-check"])
def test_checks_that_cannot_be_instrumented_are_split_as_written(lines: tuple[str, ...]) -> None:
    check = decompose(_check(*lines, "assert candidate(1) == 1"))
    assert check.why_not and check.host_tests == set() and not check.asserts
    tests = sum("assert" in line for line in lines) + 1
    assert check.tests == tests and check.names == [f"check[{i}]" for i in range(tests)]
    assert [step.source for step in check.steps] == [*lines, "assert candidate(1) == 1"]


@pytest.mark.parametrize(("body", "why"), [
    ("def check(candidate):\n    if candidate(1) != 2:\n        return\n    assert False\n",
     "return"),
    ("def check(candidate):\n    print(candidate(1))\n", "holds no assert"),
    ("def helper(c):\n    assert c(1) == 2\n", "no check(candidate)"),
], ids=["top-level-return", "no-assert", "no-check"])
def test_checks_that_cannot_be_split_are_one_test(body: str, why: str) -> None:
    check = decompose(body)
    assert why in check.why_not and check.whole and check.names == ["check"]
    assert [(step.source, step.test) for step in check.steps] == [("check(candidate)", 0)]


def test_humaneval_decomposition_figures() -> None:
    checks = [decompose(task.test or "") for task in load_humaneval()]
    assert not any(check.why_not for check in checks)
    tests = sum(check.tests for check in checks)
    host = sum(len(check.host_tests) for check in checks)
    fully = sum(len(check.host_tests) == check.tests for check in checks)
    assert (tests, host, fully) == (1181, 1180, 163)


def _host(line: str, *values: object) -> bool:
    check = decompose(_check(line, prelude="import math\n"))
    host = next(iter(check.asserts.values()))
    sites = {node.key: values[i] for i, node in enumerate(
        sorted((n for n in host.nodes.values() if n.kind == "site"), key=lambda n: n.key))}
    return evaluate(host, sites, {})


@pytest.mark.parametrize(("line", "value", "holds"), [
    ("assert candidate(1) == 0.3", 0.1 + 0.2, True),
    ("assert candidate(1) == 0.3", 0.31, False),
    ("assert candidate(1) == True", 1, True),
    ("assert candidate(1) is True", 1, False),
    ("assert candidate(1) == (1, 2)", [1, 2], False),
    ("assert candidate(1) == [1.0, 2]", [1.0000000001, 2], True),
    ("assert candidate(1) == {'a': [0.5]}", {"a": [0.5]}, True),
    ("assert abs(candidate(1) - 0.5) < 1e-6", 0.5000001, True),
    ("assert math.isclose(candidate(1), 2.0)", 2.0, True),
    ("assert candidate(1) == candidate(1)", math.nan, False),
    ("assert not candidate(1)", [], True),
    ("assert set(candidate(1)) == {1, 2}", [2, 1, 1], True),
    ("assert candidate(1) == -(10 ** 30)", -(10 ** 30), None),
    ("assert 0.5 in candidate(1)", (0.5000000000001,), True),
], ids=lambda v: repr(v)[:30])
def test_host_evaluation(line: str, value: object, holds: bool | None) -> None:
    if holds is None:  # the operand is not a literal: it is a leaf, which the reference run records
        with pytest.raises(HostEvalError, match="KeyError"):
            _host(line, value)
        return
    assert _host(line, value, value) is holds


@pytest.mark.parametrize(("line", "values"), [
    ("assert candidate(1) ** candidate(2) == 4", (10 ** 50 + 7, 99999)),
    ("assert len(candidate(1) * candidate(2)) == 1", ("ab", 10 ** 9)),
    ("assert abs(candidate(1) - 1) < 1", ("text",)),
    ("assert candidate(1)[5] == 1", ([1],)),
], ids=["huge-power", "huge-repeat", "type-error", "index-error"])
def test_host_evaluation_errors_are_contained(line: str, values: tuple[object, ...]) -> None:
    with pytest.raises(HostEvalError):
        _host(line, *values)


def test_loose_equal_keeps_python_types_apart() -> None:
    assert loose_equal(1, 1.0) and loose_equal(True, 1) and not loose_equal("1", 1)
    assert not loose_equal([1], (1,)) and loose_equal({1, 2}, {2, 1})
    assert not loose_equal(10 ** 400, 1.0)


@pytest.mark.parametrize(("data", "value"), [
    ({"~": "tuple", "v": [1, {"~": "set", "v": [2]}]}, (1, {2})),
    ({"~": "dict", "v": [[{"~": "tuple", "v": [1]}, "a"]]}, {(1,): "a"}),
    ({"~": "bytes", "v": "ff00"}, b"\xff\x00"),
    ({"~": "complex", "v": [1.0, -2.0]}, 1 - 2j),
    ([None, True, 1.5, "s"], [None, True, 1.5, "s"]),
])
def test_decode_plain(data: object, value: object) -> None:
    decoded = decode_plain(data)
    assert decoded == value and type(decoded) is type(value)


@pytest.mark.parametrize("data", [
    {"a": 1},
    {"~": "set", "v": [[1]]},
    {"~": "dict", "v": [[[1], 2]]},
    {"~": "object", "v": []},
    {"~": "bytes", "v": "zz"},
    {"~": "tuple", "v": "abc"},
])
def test_decode_plain_rejects_anything_else(data: object) -> None:
    with pytest.raises(NotPlain):
        decode_plain(data)


def test_decode_plain_rejects_deep_nesting() -> None:
    deep: list[object] = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(NotPlain):
        decode_plain(deep)


@pytest.mark.parametrize("source", [
    *(task.test for task in load_humaneval()[:20]),
    "def check(c):\r\n    x = (1,\r\n      2)\r\n    assert c(x) == \\\n  3\n",
    "def check(c):\n\tif True:\n\t\tassert c(1) == 'é'\n\t\tassert c(\n\t\t\t2)\n",
    "def check(c):\n    assert c(1) == 1; assert c(2) == 2\n\x0c\n    y = [\n'é',\n 2]\n",
])
def test_source_segments_match_the_standard_librarys(source: str) -> None:
    lines = split_lines(source)
    assert "".join(lines) == source
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.stmt, ast.expr)):
            assert segment(lines, node) == ast.get_source_segment(source, node, padded=True)
