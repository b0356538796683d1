"""docs/options.md is the options reference generated from OPTIONS, so it cannot drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pytest_req2rank.options import OPTIONS, REFERENCE_COMMAND, reference_markdown

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "options.md"


def test_the_checked_in_reference_is_the_generated_one() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == reference_markdown(), (
        f"docs/options.md differs from OPTIONS in pytest_req2rank/options.py; regenerate it "
        f"from the repository root with: {REFERENCE_COMMAND}")


def test_every_option_has_its_row_with_every_spelling() -> None:
    rows = [line for line in reference_markdown().splitlines() if line.startswith("| `--r2r-")]
    assert len(rows) == len(OPTIONS)
    for spec, row in zip(OPTIONS, rows, strict=True):
        assert f"`{spec.cli}" in row and f"`{spec.ini}`" in row and f"`{spec.env}`" in row
        assert spec.help in row


def test_the_module_prints_the_reference() -> None:
    printed = subprocess.run([sys.executable, "-m", "pytest_req2rank.options"], check=True,
                             capture_output=True, text=True, timeout=60).stdout
    assert printed == reference_markdown()


def test_every_option_is_explained_on_a_topic_page() -> None:
    docs = REFERENCE.parent
    topics = "".join(page.read_text(encoding="utf-8") for page in sorted(docs.glob("*.md"))
                     if page != REFERENCE)
    unexplained = [spec.cli for spec in OPTIONS if spec.cli not in topics]
    assert unexplained == [], (
        f"options no page under docs/ explains (other than the generated options.md): "
        f"{unexplained}; say what they do on the page of their topic "
        f"(docs/configuration.md lists the pages)")
