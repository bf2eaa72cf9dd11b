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
