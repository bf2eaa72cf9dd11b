"""The HTML part's text (pbem.mail.htmlbody): our mail's shapes read back into paragraphs, lists and boxes."""
from __future__ import annotations

import random
import re
from pathlib import Path

from pbem.mail.htmlbody import ART, Kind, _blocks, _pieces_of, line_kind, runs, to_html

REPORT = """\
==============================================================================
 IMPERIAL 2030 - game "g1" - report for cy
 Round 1, after move 4
==============================================================================

WHAT HAPPENED SINCE YOUR LAST REPORT
------------------------------------
  - China built a factory in Chongqing (paid 5), and the treasury of China
    holds 6 now.
  - Round 1: India's turn.

NATIONS
-------
  Nation  Govt  Treasury    Power
  Russia  ann          6   0 (x0)
  (> to play; Power: power points, and in brackets the multiplier of the
  bonds' interest in the final score, one per 5 points)

THE RONDEL
----------
  +-------------------+-------------------+
  | FACTORY           > PRODUCTION        |
  +-------------------+-------------------+
  Not on the rondel yet: IN, BR, US, EU.

For example, reply with:
    RONDEL factory
    BUILD Chennai
"""


def test_a_banner_becomes_a_title_and_its_round() -> None:
    page = to_html(REPORT, picture=True)
    assert '>IMPERIAL 2030 - game &quot;g1&quot; - report for cy</h2>' in page and ">Round 1, after move 4</p>" in page
    assert "=====" not in page


def test_an_underlined_heading_becomes_a_heading_and_a_bullet_an_item_with_its_wrapped_line() -> None:
    page = to_html(REPORT, picture=True)
    assert ">WHAT HAPPENED SINCE YOUR LAST REPORT</h3>" in page and "-----" not in page
    assert "<li>China built a factory in Chongqing (paid 5), and the treasury of China holds 6 now.</li>" in page


def test_columns_keep_their_lines_in_a_box_that_scrolls_sideways() -> None:
    page = to_html(REPORT, picture=True)
    assert 'overflow-x:auto' in page and "Nation  Govt  Treasury    Power\nRussia  ann          6   0 (x0)" in page


def test_wrapped_prose_is_joined_and_orders_to_copy_are_kept_as_typed() -> None:
    page = to_html(REPORT, picture=True)
    assert "multiplier of the bonds&#x27; interest" in page  # one paragraph again: it reflows
    assert ">RONDEL factory\nBUILD Chennai</pre>" in page


def test_the_drawing_is_left_to_the_picture_and_the_words_after_it_stay() -> None:
    with_picture, without = to_html(REPORT, picture=True), to_html(REPORT, picture=False)
    assert "FACTORY" not in with_picture and "(The picture shows this.)" in with_picture
    assert "Not on the rondel yet: IN, BR, US, EU." in with_picture
    assert "| FACTORY           &gt; PRODUCTION        |" in without  # no picture: the drawing, in a box


def test_a_players_words_cannot_become_markup() -> None:
    """Press and refused lines quote what a player wrote: every character is escaped (HTML injection)."""
    hostile = 'PRESS TO ALL\n<script>alert(1)</script> <img src=x onerror="alert(2)"> &amp;\n'
    page = to_html(hostile, picture=False)
    assert "<script" not in page and "<img" not in page and "&lt;script&gt;" in page and "&amp;amp;" in page


def test_every_line_is_one_kind_and_runs_keep_every_line() -> None:
    lines = REPORT.split("\n")
    assert line_kind("  - an item") is Kind.BULLET and line_kind("    RONDEL factory") is Kind.ORDERS
    assert line_kind("  Russia  ann") is Kind.COLUMNS and line_kind("  | FACTORY |") is Kind.ART
    assert line_kind("Your cash: 2.") is Kind.PROSE and line_kind("   ") is Kind.BLANK
    kept = [line for run in runs(lines[20:24]) for line in run.lines]
    assert kept == lines[20:24]


def whole(text: str, *, picture: bool) -> str:
    """``to_html`` made over the whole text at once, no piece remembered: what it was before pieces."""
    blocks: list[str] = []
    _blocks(text.split("\n"), picture, blocks)
    return "\n".join(blocks)


LINES = ["", "   ", "=" * 40, "=" * 9, "-" * 40, "-" * 12, "TITLE", "Title", "-----", "NATIONS (a, b)",
         "  Nation  Govt  Treasury", "  +----+----+", "  | FACTORY  > X |", "  - a bullet of words here",
         "      its wrapped line", "    RONDEL factory", "22:", "A sentence ends.", "x" * 60, "a  b",
         "~   ~", " / ", "<&\"'>", "Round 1: India's turn.", "\t", "Zoë's  Ünïcode", "  22:  33", "====  ===="]


def test_a_text_made_piece_by_piece_is_the_text_made_whole() -> None:
    rng = random.Random(27)
    texts = [REPORT, REPORT.replace("\n\n", "\n"), REPORT * 2, "", "\n\n", "one line"]
    texts += [path.read_text(encoding="utf-8") for path in sorted((Path(__file__).parents[1] / "golden").rglob("*.txt"))]
    texts += ["\n".join(rng.choice(LINES) for _ in range(rng.randint(1, 40))) for _ in range(400)]
    for text in texts:
        for picture in (True, False):
            assert to_html(text, picture=picture) == to_html(text, picture=picture) == whole(text, picture=picture)


def test_the_pieces_of_a_text_are_its_lines_between_blank_ones() -> None:
    assert list(_pieces_of("\n a\nb\n  \n\nc\n")) == [" a\nb", "c"]
    assert list(_pieces_of("")) == [] and list(_pieces_of(" \n\t")) == []


def test_art_is_found_where_any_of_its_seven_marks_is() -> None:
    """ART is grouped by first character for speed; it must find what the plain list of its marks finds."""
    marks = re.compile(r"[|+]-|-[|+]|\|\s|\s\||-{4,}|~\s{3,}|\s[/\\]\s")
    rng = random.Random(7)
    alphabet = "|+-~/\\ \t\u00a0\u2003ab=_"
    samples = LINES + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(50_000)]
    for sample in samples:
        assert (ART.search(sample) is None) == (marks.search(sample) is None), sample
