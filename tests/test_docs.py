"""What users read lives in the project: no page, help text or template sends them to notes they never get."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_FACING = ["README.md", "config.example.toml", *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "docs").glob("*.md")))]
SOURCES = sorted(str(p.relative_to(ROOT)) for folder in ("pbem", "templates", "engine")
                 for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".j2", ".txt"))
INTERNAL = re.compile(r"\.\./shared|shared/design|(?<![\w/])design/(?:ORDERS|STATE|ARCHITECTURE)")


@pytest.mark.parametrize("path", USER_FACING + SOURCES)
def test_nothing_points_to_internal_design_notes(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert not INTERNAL.findall(text), f"{path} points users to internal notes; point to docs/ instead"


def test_the_docs_cover_what_users_need() -> None:
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert {"README.md", "orders.md", "state-json.md", "configuration.md", "running.md", "game-master.md"} <= pages


@pytest.mark.parametrize("page", ["orders.md", "state-json.md", "configuration.md", "running.md", "game-master.md"])
def test_the_readme_and_the_docs_index_link_every_page(page: str) -> None:
    assert f"docs/{page}" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"({page})" in (ROOT / "docs" / "README.md").read_text(encoding="utf-8")


def test_every_order_keyword_is_documented_for_players() -> None:
    from pbem.games.imperial2030.orders.keywords import SPECS

    text = (ROOT / "docs" / "orders.md").read_text(encoding="utf-8")
    missing = [spec.keyword.text for spec in SPECS if f"`{spec.keyword.text}" not in text]
    assert missing == []


def test_every_configuration_key_is_documented() -> None:
    from pbem.config import accepted_keys

    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [f"[{table}] {key}" for table, keys in accepted_keys().items() for key in keys if f"`{key}`" not in text]
    assert missing == []


FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\((?P<page>[\w./-]*?\.md|)(?:#(?P<anchor>[\w-]+))?\)(?P<after>,?\s+\"(?P<section>[^\"]+)\")?")
MARKDOWN = [path for path in USER_FACING if path.endswith(".md")]


def anchors(page: Path) -> dict[str, str]:
    """The headings of a page by the anchor GitHub gives them (lower case, punctuation dropped, '-' for spaces)."""
    found: dict[str, str] = {}
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
            numbered, n = slug, 0
            while numbered in found:
                n += 1
                numbered = f"{slug}-{n}"
            found[numbered] = title
    return found


@pytest.mark.parametrize("path", MARKDOWN)
def test_every_link_to_a_section_of_a_page_finds_that_section(path: str) -> None:
    """A link's '#anchor' is a heading of the page it names; a section named in quotes after a link
    ('see [orders.md](orders.md), "Writing a reply"') is one of that page's headings too."""
    source = ROOT / path
    text = " ".join(FENCE.sub("", source.read_text(encoding="utf-8")).split())
    broken = []
    for link in LINK.finditer(text):
        page = (source.parent / link["page"]).resolve() if link["page"] else source
        if not page.exists():
            continue  # where a page is missing is another test's question; here, its sections
        headings = anchors(page)
        if link["anchor"] and link["anchor"] not in headings:
            broken.append(f"{link.group(0)}: no heading with the anchor #{link['anchor']}")
        if link["section"] and link["section"].rstrip(".,;:") not in headings.values():
            broken.append(f"{link.group(0)}: no section {link['section']!r} in {page.name}")
    assert broken == []
