"""What users read lives in the project: no page, help text or template sends them to notes they never get."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.cli import app
from pbem.config import accepted_keys
from pbem.games import BUILT_IN, KINDS
from pbem.games.imperial2030.orders.keywords import SPECS

ROOT = Path(__file__).resolve().parents[2]
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
    text = (ROOT / "docs" / "orders.md").read_text(encoding="utf-8")
    missing = [spec.keyword.text for spec in SPECS if f"`{spec.keyword.text}" not in text]
    assert missing == []


def test_every_configuration_key_is_documented() -> None:
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


def game_set_examples() -> list[tuple[str, str, tuple[str, ...]]]:
    """Every `pbem game set GAME KEY=VALUE ...` the README and docs/ show: (page, its pairs, the kinds it is for).

    An example is for the kinds whose titles its line names (``# Eight-Minute Empire``), else for every kind.
    """
    found = []
    for page in ("README.md", *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md")))):
        for line in (ROOT / page).read_text(encoding="utf-8").splitlines():
            for match in re.finditer(r"pbem game set \S+((?: [a-z_.]+=[^\s`]+)+)", line):
                named = tuple(kind for kind in BUILT_IN if KINDS[kind].info.title in line)
                found.append((page, match.group(1).strip(), named or tuple(BUILT_IN)))
    return found


@pytest.mark.parametrize(("page", "pairs", "kinds"), game_set_examples(), ids=lambda v: str(v))
def test_every_documented_game_set_example_works_on_its_kind_of_game(tmp_path: Path, page: str, pairs: str,
                                                                      kinds: tuple[str, ...]) -> None:
    """All or nothing: one key a game does not have (deadline.bid on Imperial 2030) would set nothing at all."""
    from typer.testing import CliRunner

    runner = CliRunner()
    url = f"sqlite:///{tmp_path / 'docs.db'}"
    for kind in kinds:
        created = runner.invoke(app, ["--database", url, "game", "new", kind, "--kind", kind, "--seed", "1",
                                      "--player", "ann:ann@example.org", "--player", "bob:bob@example.org"])
        assert created.exit_code == 0, created.output
        result = runner.invoke(app, ["--database", url, "game", "set", kind, *pairs.split()])
        assert result.exit_code == 0, f"{page}: pbem game set {pairs} on {kind}: {result.output}"


def test_the_game_set_examples_are_found() -> None:
    pages = {page for page, _, _ in game_set_examples()}
    assert {"README.md", "docs/game-master.md"} <= pages


def test_the_readme_says_how_long_the_tests_take_and_gives_a_quick_subset() -> None:
    """The whole suite takes minutes: the README says so, keeps CI's exact command, and gives `-m "not slow"`."""
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.DOTALL)
    assert blocks[1].strip() == ". .venv/bin/activate && python -m pytest"  # .ci/run's command, exactly
    assert (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().endswith(blocks[1].strip())
    before = " ".join(readme[:readme.index(blocks[1])].split())
    assert re.search(r"takes about \d+ minutes", before), "say how long the whole suite takes"
    assert '. .venv/bin/activate && python -m pytest -m "not slow"' in blocks[2]
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    options = pytest_options["ini_options"]
    assert any(marker.startswith("slow:") for marker in options["markers"])
    assert "--strict-markers" in options["addopts"].split()  # a mistyped @pytest.mark.slwo is an error
    assert "-q" not in options["addopts"].split()  # the run names each file as it starts: no silent first minute
