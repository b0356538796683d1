"""First-order mutants: each operator, what is never mutated, dedup, sampling, files, registry."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

import pytest

from pytest_req2rank.mutation import OPERATORS, Mutant, mutants, mutate_files
from pytest_req2rank.mutation._operators import register_operator

SOURCE = '''
from __future__ import annotations


def f(a: int | None, b: int) -> int | None:
    """Docstring: a + b < 3."""
    if not a and b < 3:
        return a + b * 2
    total = 0
    while total <= b:
        total += 1
    return [i for i in range(b) if i % 2 == 0] or None


if __name__ == "__main__":
    print(f(1, 2) - 1)
'''


def _by_kind(kind: str) -> list[Mutant]:
    return list(mutants(SOURCE, kinds=[kind]))


def _changed(m: Mutant) -> set[str]:
    before = set(ast.unparse(ast.parse(SOURCE)).splitlines())
    return set(m.source.splitlines()) - before


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("arithmetic", {"        return a - b * 2", "        return a + b / 2",
                        "        total -= 1", "    return [i for i in range(b) if i // 2 == 0] or None"}),
        ("comparison-flip", {"    if not a and b >= 3:", "    while total > b:",
                             "    return [i for i in range(b) if i % 2 != 0] or None"}),
        ("comparison-swap", {"    if not a and b > 3:", "    while total >= b:"}),
        ("boundary", {"    if not a and b <= 3:", "    while total < b:"}),
        ("boolean", {"    if not a or b < 3:", "    return [i for i in range(b) if i % 2 == 0] and None"}),
        ("negate-condition", {"    if not (not a and b < 3):", "    while not total <= b:",
                              "    return [i for i in range(b) if not i % 2 == 0] or None"}),
        ("remove-not", {"    if a and b < 3:"}),
        ("return-none", {"        return None", "    return None"}),
    ],
)
def test_operator_changes(kind: str, expected: set[str]) -> None:
    found = _by_kind(kind)
    changed = set().union(*(_changed(m) for m in found))
    assert expected <= changed, sorted(changed)
    assert all(m.kind == kind and len(_changed(m)) >= 1 for m in found)


def test_constants_move_by_one_each_way() -> None:
    values = sorted(m.description.split(": ")[1] for m in _by_kind("constant"))
    assert values == ["0 → -1", "0 → -1", "0 → 1", "0 → 1", "1 → 0", "1 → 2", "2 → 1",
                      "2 → 1", "2 → 3", "2 → 3", "3 → 2", "3 → 4"]


def test_statements_are_dropped_but_not_definitions_or_imports() -> None:
    dropped = {m.description.split(": ", 1)[1] for m in _by_kind("statement-drop")}
    assert "`total = 0` dropped" in dropped and "`total += 1` dropped" in dropped
    assert not any("import" in d or "def " in d for d in dropped)


def test_annotations_docstrings_and_main_guard_are_never_mutated() -> None:
    for m in mutants(SOURCE):
        tree = ast.parse(m.source)
        func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        assert ast.unparse(func.returns) == "int | None"
        assert ast.unparse(func.args.args[0].annotation) == "int | None"
        assert ast.get_docstring(func) == "Docstring: a + b < 3."
        assert "print(f(1, 2) - 1)" in m.source


def test_mutants_are_unique_compile_and_differ_from_the_original() -> None:
    found = list(mutants(SOURCE))
    original = ast.unparse(ast.parse(SOURCE))
    assert len({m.source for m in found}) == len(found)
    assert original not in {m.source for m in found}
    assert len({m.id for m in found}) == len(found)
    for m in found:
        compile(m.source, m.id, "exec")
    assert found == list(mutants(SOURCE)), "enumeration is deterministic"
    assert [m.line for m in found] == sorted(m.line for m in found), "source order"


def test_mutants_that_do_not_compile_or_change_nothing_are_skipped() -> None:
    @register_operator("test-only")
    def broken_or_identical(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
        if isinstance(node, ast.Assign):
            yield ast.Return(value=ast.Constant(value=1)), "return outside a function"
            yield copy.deepcopy(node), "no change"
            yield ast.Pass(), "kept"

    try:
        found = list(mutants("x = 1\n", kinds=["test-only"]))
    finally:
        del OPERATORS["test-only"]
    assert [(m.source, m.description) for m in found] == [("pass", "line 1: kept")]


def test_sample_cap_is_deterministic_and_in_source_order() -> None:
    every = list(mutants(SOURCE))
    sample = list(mutants(SOURCE, limit=5, rng_seed=7))
    assert len(sample) == 5 and sample == list(mutants(SOURCE, limit=5, rng_seed=7))
    assert [every.index(m) for m in sample] == sorted(every.index(m) for m in sample)
    assert sample != list(mutants(SOURCE, limit=5, rng_seed=8))


def test_files_are_mutated_one_at_a_time() -> None:
    files = {"pkg/b.py": "def g(x):\n    return x + 1\n", "a.py": "y = 2 * 3\n", "README.md": "1 + 1"}
    found = list(mutate_files(files))
    assert {m.path for m in found} == {"a.py", "pkg/b.py"}
    assert [m.path for m in found] == sorted(m.path for m in found)
    mutated = found[0].apply(files)
    changed = [name for name in files if mutated[name] != files[name]]
    assert changed == [found[0].path]
    assert len(list(mutate_files(files, limit=3))) == 3
    with pytest.raises(KeyError):
        found[0].apply({"other.py": ""})


def test_custom_operator_via_registry() -> None:
    @register_operator("string-empty")
    def empty_strings(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            yield ast.Constant(value=""), f"{node.value!r} → ''"

    try:
        found = list(mutants("x = 'hi'\n", kinds=["string-empty"]))
        assert [m.source for m in found] == ["x = ''"]
    finally:
        del OPERATORS["string-empty"]
    with pytest.raises(KeyError, match="unknown mutation kinds"):
        list(mutants("x = 1\n", kinds=["string-empty"]))


def test_invalid_source_raises_syntax_error() -> None:
    with pytest.raises(SyntaxError):
        list(mutants("def broken(:\n"))
