"""A minimal valid template, written as TOML text, for the loader and instantiation tests."""

from __future__ import annotations

from pathlib import Path

import pytest

VALID_TEMPLATE = '''
id = "tiny"
title = "Add {n} to numbers"
skills = ["algorithm"]
complexity = "C1"
domains = ["general-utilities"]
scenarios = ["general-utilities/caching"]
description = """
Write `{func}(x)` returning x + {n}. Literal braces: {{not a slot}}.
"""
constraints = ["Standard library only."]
deliverables = ["tiny.py"]
setup = "from tiny import {func}"

[slots.func]
type = "identifier"
values = ["add_n", "plus_n"]

[slots.n]
type = "int"
values = [1, 2, 3]

[slots.word]
type = "str"
values = ["one", "two", "three"]
tied_to = "n"

[interface]
kind = "function"
text = "tiny.py: def {func}(x: int) -> int  # adds {word}"

[[requirements]]
id = "FR-1"
text = "Add {n}."
acceptance = "{func}(0) == {n}"
priority = "must"

[guidance]
differentiators = ["Simple"]
pitfalls = ["Adding the wrong number"]
edge_cases = ["Negative x"]

[reference]
"tiny.py" = """
def {func}(x):
    return x + {n}
"""

[[probes]]
name = "zero"
code = "result = {func}(0)"
expect = "{n}"
requirement = "FR-1"

[[probes]]
name = "pair"
code = "result = [{func}(10), {word!r}]"
expect_expr = "[10 + n, word]"

[[probes]]
name = "label"
code = "result = {func}(-{n})"
expect = {"sum for {word}" = ["{n}", "n={n}"]}

[[probes]]
name = "bad-type"
code = "{func}('x')"
raises = "TypeError"
priority = "should"
'''


@pytest.fixture
def template_text() -> str:
    """The text of a minimal valid template file."""
    return VALID_TEMPLATE


@pytest.fixture
def write_template(tmp_path: Path):
    """Write template text (the valid template by default) as ``<name>.toml`` and return the path."""

    def write(text: str = VALID_TEMPLATE, name: str = "tiny") -> Path:
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        return path

    return write
