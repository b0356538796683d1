"""Every relative link in README.md and docs/*.md leads to a file that exists, and every
#anchor to a heading of that file (GitHub's anchors: lower case, punctuation dropped,
spaces as hyphens)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return CODE.sub("", FENCE.sub("", text))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file."""
    found: set[str] = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            base, n = slug, 1
            while slug in found:
                slug, n = f"{base}-{n}", n + 1
            found.add(slug)
    return found


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no file {resolved.relative_to(root)}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with anchor #{anchor} in "
                          f"{resolved.relative_to(root)}")
    return broken


def test_the_pages_link_to_each_other() -> None:
    assert len(PAGES) > 10
    readme = prose(PAGES[0].read_text(encoding="utf-8"))
    assert "(docs/index.md)" in readme and "(docs/options.md)" in readme


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == [], f"{page.relative_to(ROOT)}: broken links"


def test_a_broken_link_and_a_missing_anchor_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# The other page\n\n## How it's done\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n[ok](other.md#how-its-done) [self](#page) [web](https://x.org)\n"
                    "`[code](nowhere.md)`\n\n```\n[block](nowhere.md)\n```\n"
                    "[gone](missing.md) [bad](other.md#nope) [bad-self](#nope)\n",
                    encoding="utf-8")
    assert broken_links(page, tmp_path) == [
        "missing.md: no file missing.md",
        "other.md#nope: no heading with anchor #nope in other.md",
        "#nope: no heading with anchor #nope in page.md",
    ]
