"""The knowledge base: the bundled files load and cover every family; a broken file is one
line per problem."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_req2rank.nversion import FAMILIES
from pytest_req2rank.nversion._knowledge import (
    GENERAL,
    KNOWLEDGE_VERSION,
    KnowledgeError,
    bundled_knowledge,
    load_knowledge,
)


def test_the_bundled_knowledge_covers_every_family() -> None:
    knowledge = load_knowledge()
    assert knowledge.version == KNOWLEDGE_VERSION
    assert set(knowledge.families) == {*FAMILIES, GENERAL}
    assert knowledge.of("sorting").family == "sorting"
    assert knowledge.of("unknown").family == GENERAL and knowledge.of(None).family == GENERAL
    assert set(knowledge.of("parsing").as_data()) == {
        "family", "description", "paradigms", "data_structures", "control_flow"}


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "knowledge"
    folder.mkdir()
    for entry in bundled_knowledge().iterdir():
        if entry.name.endswith(".toml"):
            (folder / entry.name).write_text(entry.read_text(encoding="utf-8"))
    return folder


def test_broken_files_are_reported_one_line_each(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    sorting = folder / "sorting.toml"
    sorting.write_text(sorting.read_text().replace("version = 1", "version = 9"))
    parsing = folder / "parsing.toml"
    parsing.write_text(parsing.read_text().replace(
        'paradigms = ["explicit stack",', 'paradigms = ["depth counter",'))
    (folder / "recurrence.toml").write_text("version = [")
    with pytest.raises(KnowledgeError) as error:
        load_knowledge(folder)
    lines = error.value.errors
    assert any(line.startswith("sorting.toml: version: 9 given") for line in lines)
    assert "parsing.toml: paradigms: an entry is listed twice" in lines
    assert any(line.startswith("recurrence.toml: not valid TOML") for line in lines)


def test_a_missing_family_is_an_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "general.toml").unlink()
    with pytest.raises(KnowledgeError, match="no file for the families general"):
        load_knowledge(folder)
    shutil.rmtree(folder)
