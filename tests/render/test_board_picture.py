"""A picture of the board: each kind's scene (what is drawn where), its PNG, and `pbem board NAME --png FILE`.

The scenes are checked for their structure, not pixels: every region of the
map data is a node at its place from the ASCII art, drawn once, every
adjacency a link of its kind, every piece a token in its owner's colour where
it stands, the panels beside the map (Imperial's rondel and nations,
Eight-Minute Empire's row) what the mails' text says; labels keep their word
spaces. The PNG must decode, have the scene's size and stay small enough to
go in a mail; no two places may overlap, nor a place or a line a panel (or
the picture is not legible).
"""
from __future__ import annotations

import io
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from engine.core.seats import Seat
from engine.eight_minute_empire.model import NEUTRAL, Setup, State, Variant
from engine.imperial2030.game import apply
from engine.imperial2030.model import GameState
from engine.imperial2030.randomplay import random_move
from pbem.cli import app
from pbem.games.eight_minute_empire.cardtext import card_words
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.imperial2030.kind import Imperial2030
from pbem.render.art import parse_art
from pbem.render.links import STROKES, Obstacles, _answer
from pbem.render.measure import RULER, font, measure, spaced
from pbem.render.picture import render_png
from pbem.render.png import boxes, settle
from pbem.render.routes import route
from pbem.render.scene import (
    LEGEND_BAND,
    MARGIN,
    TITLE_BAND,
    Link,
    LinkStyle,
    Node,
    Panel,
    Point,
    Scene,
    Token,
    TokenShape,
    colour,
    nearest,
    pale,
)
from tests.helpers import position, standard_game, turn_of

MAX_BYTES = 60_000  # a board is some 13-40 KB (benchmarks/picture_bytes.py); it was 70 KB before issue 29
EME = EightMinuteEmpire()
IMPERIAL = Imperial2030()
RED, BLUE, GREEN = colour("red"), colour("blue"), colour("green")


def eme_position(players: int = 3, variants: frozenset[Variant] = frozenset()) -> State:
    """A fixed position: ann (red) holds 9 and continent C's majority, bob (blue) continent D, 12 is tied."""
    seats = tuple(Seat(n, f"{n}@x.org") for n in ("ann", "bob", "cy")[:players])
    state, _ = EME.rules.new_game(Setup(seats, 5, (), variants))
    armies = {12: {"ann": 3, "bob": 3}, 9: {"ann": 2}, 10: {"ann": 1, "bob": 1}, 23: {"bob": 2}}
    if players == 3:
        armies[12]["cy"] = 3
        armies[5] = {"cy": 1}
    return replace(state, armies=armies, cities={9: {"ann": 1}, 25: {"bob": 2}})


def overlaps(scene: Scene) -> list[tuple[str, str]]:
    """Pairs of places (and panels, by title) whose boxes overlap as drawn (after ``settle``)."""
    placed = [(ident, box) for ident, found in boxes(settle(scene)).items() for box in found]
    placed += [(f"panel {panel.title!r}", tuple(float(v) for v in panel.box)) for panel in scene.panels]
    return [(a, b) for i, (a, p) in enumerate(placed) for b, q in placed[i + 1:]
            if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]


def lines_through_panels(scene: Scene) -> list[tuple[str, str]]:
    """Links whose line, as routed for drawing, comes into a panel."""
    scene = settle(scene)
    obstacles = Obstacles.of_scene(scene)
    places = {node.id: node.at for node in scene.nodes}
    width, height = scene.size
    within = (MARGIN, TITLE_BAND, width - MARGIN, height - LEGEND_BAND)
    found = []
    for link in scene.links:
        a, b = nearest(places[link.a], places[link.b])
        answer = _answer((a.x, a.y, b.x, b.y, within, scene.size, STROKES[link.style]), obstacles, (link.a, link.b))
        line = answer.routing.line
        dense = [Point(p.x + (q.x - p.x) * t / 20, p.y + (q.y - p.y) * t / 20)
                 for p, q in zip(line, line[1:], strict=False) for t in range(21)]
        if any(left <= p.x <= right and top <= p.y <= bottom for p in dense
               for left, top, right, bottom in (panel.box for panel in scene.panels)):
            found.append((link.a, link.b))
    return found


def label_lines(scene: Scene) -> dict[str, tuple[str, ...]]:
    """Node id -> the lines its label is drawn in."""
    return {node.id: measure(RULER, node, node.at[0], scene).labels for node in scene.nodes}


def word_gaps(line: str, size: float) -> list[float]:
    """The pixels between the words of a drawn line (its width less its words')."""
    words = line.split()
    width = RULER.textlength(line, font=font(size)) - sum(RULER.textlength(w, font=font(size)) for w in words)
    return [width / (len(words) - 1)] * (len(words) - 1) if len(words) > 1 else []


def panel_named(scene: Scene, head: str) -> Panel:
    """The panel whose title, or first cell's first line, starts with ``head``."""
    return next(panel for panel in scene.panels
                if panel.title.startswith(head) or (panel.cells[0].lines or ("",))[0].startswith(head))


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# --- Eight-Minute Empire ----------------------------------------------------------------------------


def test_the_eme_scene_has_every_region_and_link_of_the_map() -> None:
    scene = EME.picture(eme_position(), game="g")
    assert scene.check() == []
    assert [n.id for n in scene.nodes] == [str(r) for r in range(1, 26)]
    assert all(len(n.at) == 1 for n in scene.nodes)
    assert Counter(link.style for link in scene.links) == {LinkStyle.LAND: 30, LinkStyle.SEA: 7}
    assert Link("16", "17", LinkStyle.SEA) in scene.links and Link("1", "2", LinkStyle.LAND) in scene.links
    assert scene.node("12").label == "12 (start)"


def test_the_eme_scene_shows_each_players_pieces_where_they_stand() -> None:
    scene = EME.picture(eme_position(), game="g")
    assert scene.node("12").tokens == (Token("R3", RED), Token("B3", BLUE), Token("G3", GREEN))
    assert scene.node("9").tokens == (Token("R2", RED), Token("Rc", RED, TokenShape.BUILDING))
    assert scene.node("25").tokens == (Token("Bc2", BLUE, TokenShape.BUILDING),)
    assert scene.node("5").tokens == (Token("G1", GREEN),)
    assert {n.id for n in scene.nodes if n.tokens} == {"5", "9", "10", "12", "23", "25"}


def test_the_eme_scene_shades_controlled_regions_and_names_continent_owners() -> None:
    scene = EME.picture(eme_position(), game="g")
    assert scene.node("9").fill == pale(RED) and scene.node("9").outline == RED and scene.node("9").thick
    assert not scene.node("12").thick and not scene.node("10").thick  # ties: nobody's
    assert scene.node("25").fill == pale(BLUE)  # cities count for control
    captions = [c.text for c in scene.captions]
    assert captions == ["Continent A: cy (green)", "Continent B", "Continent C: ann (red)", "Continent D: bob (blue)"]
    assert [e.name for e in scene.legend] == ["ann (red), 11 coins", "bob (blue), 11 coins", "cy (green), 11 coins"]
    assert [e.colour for e in scene.legend] == [RED, BLUE, GREEN]


def test_the_eme_scene_shows_neutral_armies() -> None:
    state = eme_position(2, frozenset({Variant.NEUTRAL}))
    state = replace(state, armies={**state.armies, 7: {NEUTRAL: 2}})
    scene = EME.picture(state, game="g")
    assert scene.node("7").tokens == (Token("N2", colour("grey")),)
    assert scene.legend[-1].name == "neutral armies"


def test_the_eme_picture_shows_the_row_with_its_costs_and_each_players_coins() -> None:
    state = eme_position()
    scene = EME.picture(state, game="g")
    row = panel_named(scene, "The row")
    board = EME.board
    assert [cell.lines for cell in row.cells] == [
        lines for place, card in enumerate(state.row, start=1)
        for lines in ((f"{place}: cost {board.row_costs[place - 1]}",), tuple(card_words(board.cards[card]).split(": ")))]
    assert len(row.cells) == 12 and f"{len(state.deck)} cards left in the deck" in row.title
    assert [e.name for e in scene.legend] == [f"{p} ({c}), {state.coins[p]} coins"
                                              for p, c in zip(("ann", "bob", "cy"), ("red", "blue", "green"),
                                                              strict=True)]
    assert overlaps(scene) == [] and lines_through_panels(scene) == []


def test_the_eme_picture_is_a_small_legible_png() -> None:
    scene = EME.picture(eme_position(), game="g")
    data = render_png(scene)
    image = decoded(data)
    assert image.format == "PNG" and image.size == scene.size and scene.size <= (1200, 900)
    assert len(data) < MAX_BYTES
    assert overlaps(scene) == []


def test_a_line_that_would_run_through_other_regions_is_bowed_around_them() -> None:
    """Sea line 17 ~ 16 runs straight down through 2, 3 and 15 in the art's layout: drawn, it goes round them."""
    scene = settle(EME.picture(eme_position(), game="g"))
    placed = boxes(scene)
    others = [box for ident, found in placed.items() if ident not in ("16", "17") for box in found]
    line = route(scene.node("17").at[0], scene.node("16").at[0], others, (0, 0, *scene.size))
    assert len(line) > 2  # a curve
    assert not any(b[0] <= p.x <= b[2] and b[1] <= p.y <= b[3] for p in line for b in others)
    assert route(Point(0, 0), Point(100, 0), [(40, 50, 60, 70)], (0, 0, 200, 200)) == [Point(0, 0), Point(100, 0)]


# --- Imperial 2030 ----------------------------------------------------------------------------------


def imperial_position() -> GameState:
    state = standard_game()
    state = position(state, "russia", armies={"moscow": 2, "kazakhstan": 3}, fleets={"northpacific": 1},
                     flags=["kazakhstan"])
    state = position(state, "china", armies={"kazakhstan": 1}, hostile={"kazakhstan": 1}, fleets={"chinasea": 2})
    return position(state, "usa", fleets={"caribbeansea": 1})


def test_the_imperial_scene_names_every_region_of_the_map_data() -> None:
    board = IMPERIAL.board
    scene = IMPERIAL.picture(imperial_position(), game="w")
    assert scene.check() == []
    assert {n.id: n.label for n in scene.nodes if n.repeats is None} == {r: board.name(r) for r in board.regions}
    assert len(scene.links) == len(board.edges)
    styles = Counter(link.style for link in scene.links)
    assert styles[LinkStyle.CANAL] == 2 and styles[LinkStyle.COAST] == 54 and styles[LinkStyle.RAIL] == 28


def test_each_region_is_drawn_once_and_the_pacific_marked_at_the_other_edge() -> None:
    """The North and South Pacific stood at both edges of the map, each with its pieces: two seas to a
    player, and a fleet counted twice. Each is one place now, at the left edge (most of its neighbours are
    near it), and the right edge has a mark that says where it is, with no pieces."""
    scene = IMPERIAL.picture(imperial_position(), game="w")
    regions = [n for n in scene.nodes if n.repeats is None]
    assert sorted(n.id for n in regions) == sorted(IMPERIAL.board.regions) and all(len(n.at) == 1 for n in regions)
    marks = {n.repeats: n for n in scene.nodes if n.repeats is not None}
    assert set(marks) == {"northpacific", "southpacific"}
    for region, mark in marks.items():
        assert mark.tokens == () and mark.label == f"{IMPERIAL.board.name(region)} (see left edge)"
        assert mark.at[0].x > scene.node(region).at[0].x
    fleets = [t for n in scene.nodes for t in n.tokens if t.text == "F1" and t.colour == colour("purple")]
    assert len(fleets) == 1  # Russia's fleet in the North Pacific, once
    ends = {(link.a, link.b) for link in scene.links} | {(link.b, link.a) for link in scene.links}
    assert {b for a, b in ends if a == marks["northpacific"].id} == {"chinasea", "seaofjapan"}
    assert {b for a, b in ends if a == "northpacific"} == {"alaska", "canada", "caribbeansea", "colombia", "mexico",
                                                           "sanfrancisco", "southpacific"}


def test_labels_keep_their_word_spaces() -> None:
    """Pillow's default font draws a space 2 pixels wide at the labels' size, no wider than the room between
    two letters: "Rio de" read "Riode", "Gulf of Guinea" "Gulfof Guinea". Words are parted by 3 pixels at
    least, and a label wraps only at its spaces, losing none."""
    for scene in (IMPERIAL.picture(imperial_position(), game="w"), EME.picture(eme_position(), game="g")):
        drawn = label_lines(scene)
        for node in scene.nodes:
            assert " ".join(" ".join(drawn[node.id]).split()) == node.label, node.id
            assert all(gap >= 3 for line in drawn[node.id] for gap in word_gaps(line, scene.label_size)), node.id
        for panel in scene.panels:
            for cell in panel.cells:
                assert all(gap >= 3 for line in cell.lines for gap in word_gaps(spaced(line, panel.text_size),
                                                                                 panel.text_size))
    drawn = label_lines(IMPERIAL.picture(imperial_position(), game="w"))
    assert [" ".join(line.split()) for line in drawn["riodejaneiro"]] == ["Rio de", "Janeiro"]
    assert [" ".join(line.split()) for line in drawn["gulfofguinea"]] == ["Gulf of", "Guinea"]


def test_the_imperial_picture_shows_the_rondel_with_every_nations_marker() -> None:
    state = turn_of(imperial_position(), "china", rondel="taxation")
    state = position(state, "russia", rondel="investor")
    state = position(state, "india", rondel="taxation")
    scene = IMPERIAL.picture(state, game="w")
    rondel = panel_named(scene, "Factory")
    spaces = {cell.lines[0]: [t.text for t in cell.tokens] for cell in rondel.cells[:8]}
    assert [cell.lines[0] for cell in rondel.cells[:8]] == [s.name for s in IMPERIAL.board.tables.rondel]
    assert spaces["Investor"] == ["RU"] and spaces["Taxation"] == ["CN", "IN"]
    middle = rondel.cells[8]
    assert middle.lines == ("Not on the rondel:",) and [t.text for t in middle.tokens] == ["BR", "US", "EU"]
    markers = [t for cell in rondel.cells for t in cell.tokens]
    assert sorted(t.text for t in markers) == sorted(["RU", "CN", "IN", "BR", "US", "EU"])
    assert {t.text: t.colour for t in markers}["CN"] == colour("yellow")


def test_the_imperial_picture_has_a_table_of_the_nations_treasuries_and_power() -> None:
    state = turn_of(imperial_position(), "china", treasury=13, power=7)
    state = position(state, "russia", treasury=2, power=11)
    scene = IMPERIAL.picture(state, game="w")
    table = panel_named(scene, "Nation")
    heads = [cell.lines[0] for cell in table.cells[:4]]
    assert heads == ["Nation", "Governed by", "Treasury", "Power"]
    rows = [[line for cell in table.cells[4:] if cell.box[1] // 19 == row for line in cell.lines]
            for row in range(1, 7)]
    assert rows[0] == ["Russia", "Anna", "2", "11 PP"] and rows[1] == ["China", "Ben", "13", "7 PP"]
    assert [row[0] for row in rows] == ["Russia", "China", "India", "Brazil", "USA", "Europe"]
    shaded = {cell.fill for cell in table.cells[4:] if cell.box[1] // 19 == 2}
    assert shaded == {pale(colour("yellow"))}  # the nation to play
    assert {cell.fill for cell in table.cells if cell.box[1] // 19 != 2} == {None}
    assert scene.legend == ()  # the table says whose colour is whose


def test_the_imperial_scene_shows_each_unit_factory_and_flag() -> None:
    scene = IMPERIAL.picture(imperial_position(), game="w")
    purple, yellow = colour("purple"), colour("yellow")
    assert scene.node("moscow").tokens == (Token("A", purple, TokenShape.BUILDING), Token("A2", purple))
    assert scene.node("kazakhstan").tokens == (Token("", purple, TokenShape.FLAG), Token("A3", purple),
                                               Token("H1", yellow))
    assert scene.node("kazakhstan").fill == pale(purple) and not scene.node("kazakhstan").thick
    assert scene.node("chinasea").tokens == (Token("F2", yellow),)
    assert scene.node("northpacific").tokens == (Token("F1", purple),)
    assert scene.node("caribbeansea").tokens == (Token("F1", colour("red")),)
    assert scene.node("moscow").thick and scene.node("moscow").outline == purple  # a home province


def test_the_imperial_picture_is_a_small_legible_png() -> None:
    scene = IMPERIAL.picture(imperial_position(), game="w")
    data = render_png(scene)
    image = decoded(data)
    assert image.format == "PNG" and image.size == scene.size and scene.size <= (1200, 900)
    assert len(data) < MAX_BYTES
    assert overlaps(scene) == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_crowded_imperial_board_stays_legible(seed: int) -> None:
    """After 600 random moves boxes grown with pieces would touch: they are nudged apart, by a few pixels only."""
    rng = random.Random(seed)
    state = standard_game()
    for _ in range(600):
        state, _ = apply(state, *random_move(state, rng))
    scene = IMPERIAL.picture(state, game="w")
    settled = settle(scene)
    assert overlaps(scene) == []
    moved = [abs(p.x - q.x) + abs(p.y - q.y) for a, b in zip(scene.nodes, settled.nodes, strict=True)
             for p, q in zip(a.at, b.at, strict=True)]
    assert max(moved) <= 12
    assert len(render_png(scene)) < MAX_BYTES
    assert lines_through_panels(scene) == []


# --- the shared parts -------------------------------------------------------------------------------


def test_a_slot_centre_is_the_middle_of_its_slots() -> None:
    art = parse_art("== t ==\nAB a\nCD c\n== panel: P ==\n  {AB..}   {CD}\n  {AB..}\n")
    panel = art.panels[0]
    assert panel.slot_centres() == {"AB": (5.0, 0.5), "CD": (13.0, 0.0)}
    assert panel.width == 15


def test_a_scene_with_a_link_to_nowhere_is_refused() -> None:
    scene = Scene("t", (100, 100), (Node("a", "A", (Point(50, 50),)),), (Link("a", "b"),))
    assert scene.check() == ["link a-b names an unknown node"]
    with pytest.raises(ValueError, match="unknown node"):
        render_png(scene)
    with pytest.raises(ValueError, match="known: red"):
        colour("mauve")


# --- the CLI ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["eight-minute-empire", "imperial2030"])
def test_pbem_board_png_writes_the_picture(tmp_path: Path, kind: str) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()
    created = runner.invoke(app, ["--database", url, "game", "new", "g", "--kind", kind,
                                  "--player", "ann:a@x.org", "--player", "bob:b@x.org", "--seed", "3"])
    assert created.exit_code == 0, created.output
    file = tmp_path / "board.png"
    drawn = runner.invoke(app, ["--database", url, "board", "g", "--png", str(file)])
    assert drawn.exit_code == 0, drawn.output
    data = file.read_bytes()
    assert f"{len(data)} bytes" in drawn.stdout and str(file) in drawn.stdout
    image = decoded(data)
    assert image.format == "PNG" and image.size <= (1200, 900) and len(data) < MAX_BYTES
    text = runner.invoke(app, ["--database", url, "board", "g"])
    assert text.exit_code == 0 and text.stdout.isascii() and len(text.stdout.splitlines()) > 5  # still the default
    unwritable = runner.invoke(app, ["--database", url, "board", "g", "--png", str(tmp_path / "no" / "b.png")])
    assert unwritable.exit_code != 0 and "cannot write" in unwritable.stderr


@pytest.mark.parametrize("name", ["board.jpg", "board.JPEG", "board", "board.png.txt"])
def test_pbem_board_png_refuses_a_file_name_of_another_format(tmp_path: Path, name: str) -> None:
    """A PNG written into board.jpg would mislead every viewer: the name must say PNG, or nothing is written."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()
    runner.invoke(app, ["--database", url, "game", "new", "g", "--player", "ann:a@x.org", "--player", "bob:b@x.org"])
    refused = runner.invoke(app, ["--database", url, "board", "g", "--png", str(tmp_path / name)])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [f"error: --png writes a PNG picture: give a FILE ending in .png, not "
                                           f"{str(tmp_path / name)!r}"]
    assert not (tmp_path / name).exists()
    upper = runner.invoke(app, ["--database", url, "board", "g", "--png", str(tmp_path / "BOARD.PNG")])
    assert upper.exit_code == 0 and (tmp_path / "BOARD.PNG").read_bytes().startswith(b"\x89PNG")
