"""Reading users' JSONL files: a size limit per line, and FILE:LINE:COLUMN for every problem."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_req2rank.jsonl import MAX_LINE_BYTES, JsonlError, read_jsonl, value_column
from pytest_req2rank.providers import ProviderConfigError, load_samples
from pytest_req2rank.suites import SuiteError, load_jsonl

GOOD_IO = json.dumps({"task_id": "a", "prompt": "p", "canonical_solution": "print(1)",
                      "tests": [{"input": "", "output": "1"}]})


def lines_of(path: Path, **kwargs: int) -> list[tuple[int, object]]:
    return [(line.number, value) for line, value in read_jsonl(path, **kwargs)]


def test_blank_lines_crlf_and_a_bom_are_read_as_editors_show_them(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\r\n   \n{"b": 2}\r\n{"c": 3}')
    assert lines_of(path) == [(1, {"a": 1}), (4, {"b": 2}), (5, {"c": 3})]


def test_a_line_at_the_limit_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    limit = 64
    at_limit = json.dumps({"x": "y" * (limit - 9)})
    assert len(at_limit) == limit
    path = tmp_path / "s.jsonl"
    path.write_text(at_limit + "\n" + at_limit[:-1] + ' }\n{"after": 1}\n')
    with pytest.raises(JsonlError) as info:
        lines_of(path, max_line_bytes=limit)
    assert str(info.value).startswith(
        f"{path}:2:1: the line is 65 bytes, over the limit of 64 bytes a line; shorten it")
    assert lines_of(path, max_line_bytes=limit + 1)[1][0] == 2


def test_a_long_line_is_measured_to_its_end_in_chunks(tmp_path: Path) -> None:
    """The size is the whole line's (several reader chunks), and a last line without a line
    break counts too."""
    size = 3 * 1024 * 1024 + 5
    path = tmp_path / "s.jsonl"
    path.write_bytes(GOOD_IO.encode() + b"\n" + b"x" * size)
    with pytest.raises(JsonlError, match=rf":2:1: the line is {size:,} bytes, over the limit of "
                                         r"1,048,576 bytes \(1 MiB\)"):
        lines_of(path, max_line_bytes=1024 * 1024)


def test_the_default_limit_applies_to_suites_and_samples(tmp_path: Path) -> None:
    """8 MiB a line: a task or an answer bigger than that is refused with its size, not
    copied into the prompt, the Q&A log, the results JSON and the store."""
    huge = json.dumps({"task_id": "big", "prompt": "p" * MAX_LINE_BYTES,
                       "canonical_solution": "print(1)", "tests": [{"input": "", "output": "1"}]})
    suite = tmp_path / "suite.jsonl"
    suite.write_text(GOOD_IO + "\n" + huge + "\n")
    with pytest.raises(SuiteError) as info:
        load_jsonl(suite)
    message = str(info.value)
    assert message.startswith(f"{suite}:2:1: the line is {len(huge):,} bytes, over the limit of "
                              "8,388,608 bytes (8 MiB) a line")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "big", "completion": "c" * MAX_LINE_BYTES}) + "\n")
    with pytest.raises(ProviderConfigError, match=rf"^{re.escape(str(samples))}:1:1: the line is "
                                                  r"8,388,6\d\d bytes, over the limit"):
        load_samples(samples)


def test_bytes_that_are_not_utf8_are_located_by_character(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(GOOD_IO.encode() + b'\n{"task_id": "\xc3\xa9\xff"}\n')
    with pytest.raises(JsonlError, match=rf"^{re.escape(str(path))}:2:15: not UTF-8 \(byte 0xff\); "
                                         "save the file as UTF-8$"):
        lines_of(path)


def test_invalid_json_is_reported_at_the_parsers_column(tmp_path: Path) -> None:
    """Columns count characters, as editors do (the é is two bytes, one column)."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"a": 1}\n{"task_id": "é", "prompt": "p", x}\n', encoding="utf-8")
    with pytest.raises(JsonlError, match=r":2:33: invalid JSON: Expecting property name"):
        lines_of(path)


def test_a_missing_file_a_directory_and_an_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(JsonlError) as info:
        lines_of(tmp_path / "nope.jsonl")
    assert info.value.missing
    with pytest.raises(JsonlError, match="is a directory, not a JSONL file") as info:
        lines_of(tmp_path)
    assert not info.value.missing
    with pytest.raises(SuiteError, match=r"suite\.jsonl: suite file not found"):
        load_jsonl(tmp_path / "suite.jsonl")


@pytest.mark.parametrize(("text", "field", "at"), [
    ('{"a": 1, "b": {"c": [10, 20, {"d": "x"}]}}', ("b", "c", 2, "d"), '"x"'),
    ('  {"a": 1}', (), "{"),
    ('{"a": 1, "b": [1, 2]}', ("b", 5), "[1"),  # no such index: the deepest part that exists
    ('{"a": 1, "a" : 2}', ("a",), "2"),  # a repeated key: the last, as json.loads keeps it
    ('{"k\\"ey": {"x": 1}, "z": 0}', ("z",), "0"),
    ('{"a": {}, "b": [], "c": "}]"}', ("c",), '"}]"'),
])
def test_value_column_follows_keys_and_indices(text: str, field: tuple[str | int, ...],
                                               at: str) -> None:
    json.loads(text)
    assert text.count(at) == 1
    assert value_column(text, field) == text.index(at) + 1
