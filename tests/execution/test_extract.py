"""Code extraction: JSON files → fenced block → raw text; nothing → format error."""

from __future__ import annotations

import json

from pytest_req2rank.execution import extract_code


def test_json_files_answer() -> None:
    answer = json.dumps({"files": [{"path": "helpers.py", "content": "X = 1\n"},
                                   {"path": "solution.py", "content": "def f():\n    return 1\n"}]})
    code = extract_code(answer, entry_point="f")
    assert code is not None and code.method == "json"
    assert code.files == {"helpers.py": "X = 1\n", "solution.py": "def f():\n    return 1\n"}


def test_json_in_a_json_fence_and_entry_file_renamed() -> None:
    answer = "```json\n" + json.dumps(
        {"files": [{"path": "util.py", "content": "Y = 2\n"},
                   {"path": "pkg/impl.py", "content": "def f():\n    return 2\n"}]}
    ) + "\n```"
    code = extract_code(answer, entry_point="f")
    assert code is not None and code.method == "json"
    assert code.files["solution.py"] == "def f():\n    return 2\n"
    assert "pkg/impl.py" not in code.files and code.files["util.py"] == "Y = 2\n"


def test_json_paths_escaping_the_work_dir_are_dropped() -> None:
    answer = json.dumps({"files": [{"path": "../evil.py", "content": "x"},
                                   {"path": "/etc/passwd", "content": "x"}]})
    code = extract_code(answer)
    assert code is None or code.method != "json"


def test_fenced_block_prefers_the_one_defining_the_entry_point() -> None:
    answer = ("Here you go:\n```python\nprint(f(1))\n```\nand the function:\n"
              "```python\ndef f(x):\n    return x\n```\n")
    code = extract_code(answer, entry_point="f")
    assert code is not None and code.method == "fenced"
    assert code.files["solution.py"] == "def f(x):\n    return x\n"


def test_longest_block_without_entry_point() -> None:
    answer = "```\nshort = 1\n```\n```py\nlonger_code = 1\nmore = 2\n```"
    code = extract_code(answer)
    assert code is not None and code.files["solution.py"] == "longer_code = 1\nmore = 2\n"


def test_unterminated_fence_still_extracts() -> None:
    code = extract_code("```python\ndef f():\n    return 1\n")
    assert code is not None and code.files["solution.py"].startswith("def f()")


def test_raw_python_and_body_only_completion() -> None:
    raw = extract_code("def f():\n    return 1\n")
    assert raw is not None and raw.method == "raw"
    body = extract_code("    return 1\n", prompt="def f():\n")
    assert body is not None and body.files["solution.py"] == "    return 1\n"


def test_no_code_is_none() -> None:
    assert extract_code("") is None
    assert extract_code("   \n") is None
    assert extract_code("I am sorry, I cannot help with that request.") is None


def test_samples_text_is_code_even_when_it_does_not_parse() -> None:
    assert extract_code("    return a +* b\n", prompt="def f(a, b):\n") is None
    code = extract_code("    return a +* b\n", prompt="def f(a, b):\n", assume_code=True)
    assert code is not None and code.method == "raw"


def test_requirement_answers_keep_their_file_names() -> None:
    answer = json.dumps({"files": [{"path": "store/db.py", "content": "X = 1\n"},
                                   {"path": "api.py", "content": "from store.db import X\n"}]})
    code = extract_code(answer, file_name="api.py")
    assert code is not None and set(code.files) == {"store/db.py", "api.py"}
    fenced = extract_code("```python\nclass Limiter:\n    pass\n```", file_name="limiter.py")
    assert fenced is not None and set(fenced.files) == {"limiter.py"}


HELPERS = '''Two helpers first:

```python
import math
from collections import Counter

LIMIT = 10 ** 6


def is_prime(n):
    if n < 2:
        return False
    return all(n % d for d in range(2, math.isqrt(n) + 1))


def unused():
    return "never needed"
```

Then the function:

```py
def count_primes(xs):
    counts = Counter(is_prime(x) for x in xs if x < LIMIT)
    return counts[True]
```

Try it:

```python
from solution import count_primes
counts = count_primes([2, 3, 4])
print(counts)
assert counts == 99
```
'''


def test_the_entry_block_brings_the_helpers_and_imports_it_reaches() -> None:
    code = extract_code(HELPERS, entry_point="count_primes")
    assert code is not None and code.method == "fenced"
    # the local name `counts` does not bring the usage block's global `counts = ...`
    assert code.files["solution.py"] == (
        "import math\nfrom collections import Counter\n\n\n"
        "LIMIT = 10 ** 6\n\n\n"
        "def is_prime(n):\n    if n < 2:\n        return False\n"
        "    return all(n % d for d in range(2, math.isqrt(n) + 1))\n\n\n"
        "def count_primes(xs):\n    counts = Counter(is_prime(x) for x in xs if x < LIMIT)\n"
        "    return counts[True]\n")


def test_the_last_definition_of_the_entry_point_is_the_program() -> None:
    answer = ("The signature:\n```python\ndef f(x):\n    \"\"\"Double x.\"\"\"\n```\n"
              "A first version:\n```python\ndef f(x):\n    return x + x + 1\n```\n"
              "Fixed:\n```python\ndef f(x):\n    return 2 * x\n```\n"
              "The signature again, for reference:\n```python\ndef f(x):\n    ...\n```\n")
    code = extract_code(answer, entry_point="f")
    assert code is not None and code.files["solution.py"] == "def f(x):\n    return 2 * x\n"


def test_a_draft_definition_in_another_block_is_never_a_helper() -> None:
    answer = ("```python\ndef helper():\n    return 1\n\ndef f():\n    return 0\n```\n"
              "```python\ndef f():\n    return helper() + 1\n```\n")
    code = extract_code(answer, entry_point="f")
    assert code is not None
    assert code.files["solution.py"] == ("def helper():\n    return 1\n\n\n"
                                         "def f():\n    return helper() + 1\n")


def test_a_cut_block_that_does_not_parse_is_still_the_program() -> None:
    answer = "```python\nprint(f(2))\n```\n```python\ndef f(x):\n    return (x +\n"
    code = extract_code(answer, entry_point="f")
    assert code is not None and code.files["solution.py"] == "def f(x):\n    return (x +\n"


def test_fences_of_tildes_indented_or_longer_are_blocks() -> None:
    listed = "1. The code:\n\n   ```python\n   def f():\n       return 1\n   ```\n"
    code = extract_code(listed, entry_point="f")
    assert code is not None and code.files["solution.py"] == "def f():\n    return 1\n"
    tilde = "~~~python3\ndef f():\n    return '```'\n~~~\n"
    code = extract_code(tilde, entry_point="f")
    assert code is not None and code.files["solution.py"] == "def f():\n    return '```'\n"


NAMED = '''**app/models.py**
```python
class Item:
    pass
```

# file: app/views.py
```python
from app.models import Item
```

### app/__init__.py
```python
VERSION = 1
```

`app/store.py`:
```python
STORE = {}
```

Here is `app/cli.py`:
```python
# the command line
```

app/config.py:
```python
DEBUG = False
```

```python
# app/util.py
def helper():
    return 1
```

```python title="app/extra.py"
EXTRA = 1
```

```python:app/more.py
MORE = 1
```

Usage:
```python
from app.models import Item
print(Item())
```

```bash
python -m app
```
'''


def test_blocks_under_file_names_keep_their_files() -> None:
    code = extract_code(NAMED, file_name="solution.py")
    assert code is not None and code.method == "named"
    assert set(code.files) == {"app/models.py", "app/views.py", "app/__init__.py",
                               "app/store.py", "app/cli.py", "app/config.py", "app/util.py",
                               "app/extra.py", "app/more.py"}
    assert code.files["app/views.py"] == "from app.models import Item\n"


def test_unsafe_file_names_are_not_file_names() -> None:
    answer = ("**../evil.py**\n```python\nX = 1\n```\n**/etc/passwd.py**\n```python\nY = 1\n```\n"
              "**app/ok.py**\n```python\nZ = 1\n```\n**app/two.py**\n```python\nW = 1\n```\n")
    code = extract_code(answer, file_name="solution.py")
    assert code is not None and set(code.files) == {"app/ok.py", "app/two.py"}


def test_one_named_program_of_a_one_file_requirement_is_that_file() -> None:
    answer = "**solution.py**\n```python\nclass Limiter:\n    pass\n```\n"
    code = extract_code(answer, file_name="limiter.py")
    assert code is not None and code.files == {"limiter.py": "class Limiter:\n    pass\n"}
    named = extract_code("**limiter.py**\n```python\nX = 1\n```\n**README.md**\n```\nhi\n```\n",
                         file_name="limiter.py")
    assert named is not None and named.files == {"limiter.py": "X = 1\n", "README.md": "hi\n"}


def test_a_function_task_in_two_named_files_grades_the_one_defining_it() -> None:
    answer = ("**helpers.py**\n```python\ndef twice(x):\n    return 2 * x\n```\n"
              "**main.py**\n```python\nfrom helpers import twice\n\ndef f(x):\n"
              "    return twice(x)\n```\n")
    code = extract_code(answer, entry_point="f")
    assert code is not None and code.method == "named"
    assert set(code.files) == {"helpers.py", "solution.py"}
    assert "def f(x)" in code.files["solution.py"]


def test_a_dotted_name_in_backticks_names_no_file() -> None:
    answer = ("**calc.py**\n```python\nfrom collections import Counter\nX = Counter()\n```\n"
              "It relies on `collections.Counter`:\n```python\nfrom calc import X\nprint(X)\n```\n")
    code = extract_code(answer, file_name="calc.py")
    assert code is not None and code.files == {
        "calc.py": "from collections import Counter\nX = Counter()\n"}
