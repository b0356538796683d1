"""ItemId: every id scheme a run writes reads back to the same parts, and a bad id is refused
with a message naming what is wrong."""

from __future__ import annotations

import pytest

from pytest_req2rank.errors import Req2RankError
from pytest_req2rank.models import NVERSION_DATASET, ItemId, ItemIdError, dataset_name

SCHEMES = [
    ("humaneval/HumanEval_0", ItemId("humaneval", "HumanEval_0")),
    ("dynamic/r3-di-container+flex-row-layout-C3-developer-tools",
     ItemId("dynamic", "r3-di-container+flex-row-layout-C3-developer-tools")),
    ("my.suite/task-1", ItemId("my.suite", "task-1")),
    ("humaneval/HumanEval_1/s0", ItemId("humaneval", "HumanEval_1", sample=0)),
    ("humaneval/HumanEval_1/s11", ItemId("humaneval", "HumanEval_1", sample=11)),
    ("nversion/HumanEval_12/v0", ItemId("nversion", "HumanEval_12", version=0)),
    ("nversion/HumanEval_12/v7", ItemId("nversion", "HumanEval_12", version=7)),
    ("nversion/HumanEval_12/Pat-CL0", ItemId("nversion", "HumanEval_12", pattern="Pat-CL0")),
    ("nversion/HumanEval_12/Pat-AL4", ItemId("nversion", "HumanEval_12", pattern="Pat-AL4")),
    ("nversion/HumanEval_12", ItemId("nversion", "HumanEval_12")),
]


@pytest.mark.parametrize(("text", "parts"), SCHEMES, ids=[text for text, _ in SCHEMES])
def test_every_scheme_parses_to_its_parts_and_formats_back(text: str, parts: ItemId) -> None:
    parsed = ItemId.parse(text)
    assert parsed == parts and str(parsed) == text
    assert ItemId.parse(str(parts)) == parts and ItemId.try_parse(text) == parts


def test_the_task_of_a_sample_version_and_check_is_its_dataset_and_task() -> None:
    sample = ItemId.parse("humaneval/HumanEval_1/s3")
    assert str(sample.task_item) == "humaneval/HumanEval_1"
    assert str(sample.task_item.with_sample(4)) == "humaneval/HumanEval_1/s4"
    assert str(ItemId.parse("nversion/T/Pat-AL2").task_item) == "nversion/T"
    suite_task = ItemId.parse("humaneval/HumanEval_12")
    assert str(suite_task.nversion_task) == "nversion/HumanEval_12"
    assert str(suite_task.with_version(2)) == "nversion/HumanEval_12/v2"
    assert str(suite_task.with_pattern("Pat-CL1")) == "nversion/HumanEval_12/Pat-CL1"
    version = ItemId.parse("nversion/HumanEval_12/v3")
    assert version.nversion_task == suite_task.nversion_task
    assert version.nversion_task.dataset == NVERSION_DATASET
    assert ItemId.parse("nversion/T/Pat-CL0").is_ensemble_check
    assert not version.is_ensemble_check and not sample.is_ensemble_check


def test_a_suite_task_id_is_made_fit_for_an_id_as_a_dataset_name_is() -> None:
    assert str(ItemId.of_task("humaneval", "HumanEval/0")) == "humaneval/HumanEval_0"
    assert str(ItemId.of_task("d", " weird / id! ")) == "d/weird_id"
    assert str(ItemId.of_task("d", "@@")) == "d/task"
    assert dataset_name("my suite (v2)") == "my_suite_v2" and dataset_name("///") == "suite"


@pytest.mark.parametrize(("text", "says"), [
    ("", "expected DATASET/TASK"),
    ("humaneval", "expected DATASET/TASK"),
    ("humaneval/", "expected DATASET/TASK"),
    ("/HumanEval_0", "expected DATASET/TASK"),
    ("a/b/s1/extra", "expected DATASET/TASK"),
    ("humaneval/HumanEval_1/s01", "its last part 's01' is none of sK"),
    ("humaneval/HumanEval_1/x3", "its last part 'x3' is none of sK"),
    ("nversion/T/Pat-XL0", "its last part 'Pat-XL0' is none of sK"),
    ("nversion/T/Pat-CL5", "its last part 'Pat-CL5' is none of sK"),
    ("humaneval/HumanEval_1/v3", "a version or an ensemble check is an N-version item"),
    ("humaneval/HumanEval_1/Pat-CL0", "a version or an ensemble check is an N-version item"),
    ("jsonl/task (1)", "task 'task (1)' is not letters, digits"),
    ("my suite/t", "dataset 'my suite' is not letters, digits"),
    ("humaneval/HumanEval_0@gpt 4o", "holds whitespace or square brackets"),
])
def test_a_bad_id_is_refused_saying_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ItemIdError) as refused:
        ItemId.parse(text)
    assert says in str(refused.value) and "\n" not in str(refused.value)
    assert isinstance(refused.value, Req2RankError) and isinstance(refused.value, ValueError)
    assert ItemId.try_parse(text) is None


def test_parts_that_make_no_id_are_refused() -> None:
    with pytest.raises(ItemIdError, match="a sample and a version given"):
        ItemId("nversion", "T", sample=1, version=1)
    with pytest.raises(ItemIdError, match="sample -1 is not a whole number"):
        ItemId("d", "t", sample=-1)
    with pytest.raises(ItemIdError, match="pattern 'Pat-CL9' is not one of"):
        ItemId("nversion", "t", pattern="Pat-CL9")
    with pytest.raises(ItemIdError, match="task 'a/b' is not letters"):
        ItemId("d", "a/b")


def test_an_id_is_a_frozen_hashable_value() -> None:
    item = ItemId.parse("d/t/s1")
    with pytest.raises(AttributeError):
        item.sample = 2  # type: ignore[misc]
    assert {item, ItemId.parse("d/t/s1")} == {item}


@pytest.mark.parametrize(("node_id", "item"), [
    ("test_benchmark.py::test_task[humaneval/HumanEval_0]", "humaneval/HumanEval_0"),
    ("test_benchmark.py::test_task[nversion/T/v1]@nversion/T", "nversion/T/v1"),
    ("test_benchmark.py::test_task[d/t/s2]@", "d/t/s2"),
    ("test_other.py::test_plain", None),
    ("test_other.py::test_param[1-2]", None),
])
def test_the_id_a_pytest_node_id_carries(node_id: str, item: str | None) -> None:
    found = ItemId.in_node_id(node_id)
    assert (None if found is None else str(found)) == item


@pytest.mark.parametrize(("text", "item"), [
    ("humaneval/HumanEval_0@r2r/reference", ItemId("humaneval", "HumanEval_0", model="r2r/reference")),
    ("humaneval/HumanEval_0@r2r/degraded:0.3",
     ItemId("humaneval", "HumanEval_0", model="r2r/degraded:0.3")),
    ("d/t/s2@openai/gpt-4o", ItemId("d", "t", sample=2, model="openai/gpt-4o")),
    # a model string may itself hold "@" (Vertex AI's versions): the item's part ends at the first
    ("d/t@vertex_ai/claude-3-5-sonnet@20240620",
     ItemId("d", "t", model="vertex_ai/claude-3-5-sonnet@20240620")),
])
def test_an_id_with_a_model_reads_back_to_its_parts(text: str, item: ItemId) -> None:
    assert ItemId.parse(text) == item
    assert str(item) == text
    assert item.without_model == ItemId.parse(text.partition("@")[0])
    assert item.task_item.model is None
    assert item.without_model.with_model(item.model or "") == item


def test_a_model_part_that_makes_no_id_is_refused() -> None:
    with pytest.raises(ItemIdError, match="model '' is empty"):
        ItemId.parse("d/t@")
    with pytest.raises(ItemIdError, match="holds whitespace or square brackets"):
        ItemId("d", "t", model="gpt 4o")
    with pytest.raises(ItemIdError, match="takes no @MODEL"):
        ItemId.parse("nversion/T/v1@gpt-4o")
    with pytest.raises(ItemIdError, match="expected"):
        ItemId.parse("d@gpt-4o")


def test_a_node_id_carries_an_id_with_a_model() -> None:
    found = ItemId.in_node_id("test_benchmark.py::test_task[humaneval/HumanEval_0@r2r/degraded:0.3]")
    assert found == ItemId("humaneval", "HumanEval_0", model="r2r/degraded:0.3")
