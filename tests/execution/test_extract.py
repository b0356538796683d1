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
