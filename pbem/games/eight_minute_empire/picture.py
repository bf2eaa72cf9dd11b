"""Eight-Minute Empire's map as a picture (``EightMinuteEmpire.picture``): regions, links, armies and cities.

Why: who holds which region and continent is what the game is scored on,
and a picture shows it at a glance where the ASCII map spells it out. The
regions, continents and links come from the map data
(``maps/eight-minute-empire.json``), where each region stands from its slot in
``maps/eight-minute-empire-board.txt``: continents A and B side by side above
C and D, as the sea lines between them run. Beside continent D, where the
art leaves room, the row of cards a player takes from, each with its place's
cost; each player's coins are in the legend. The words drawn are in
``templates/eight_minute_empire/_picture.j2``.
"""
from __future__ import annotations

import re

from engine.eight_minute_empire.board import Board
from engine.eight_minute_empire.model import NEUTRAL, State, Variant
from engine.eight_minute_empire.scoring import continent_owners, region_owners
from pbem.games.eight_minute_empire.cardtext import card_words
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.games.eight_minute_empire.viewmodels import say, status_view
from pbem.games.eight_minute_empire.views import REGIONS_TABLE, map_art
from pbem.languages import SOURCE, spoken
from pbem.render.measure import font
from pbem.render.scene import (
    INK,
    LAND,
    Caption,
    Cell,
    LegendEntry,
    Link,
    LinkStyle,
    Node,
    Panel,
    Scene,
    Token,
    TokenShape,
    art_layout,
    colour,
    fit,
    pale,
)

SIZE = (1100, 760)
NODE = (120, 44)
LABEL_SIZE = 14
PANELS = ((0, 1), (2, 3))  # continents A | B above C | D
NEUTRAL_COLOUR = colour("grey")
CONTINENT = re.compile(r"Continent (\w+)")
ROW_BOX = (576, 566, 1088, 686)  # below continent D, right of region 22: only a sea line passes, above it
# The cards' words of the other languages are longer ("rozmieszczenie armii", "марш-бросок"): their row reaches
# up to just below that sea line and its letters are smaller, so that a card's good and action fit its cell.
ROW_BOX_LONG_WORDS = (576, 548, 1088, 686)
ROW_TEXT = 12.0
ROW_TEXT_LONG_WORDS = 10.5
CARD_GAP = 4
CELL_PAD = 5  # pixels a cell keeps free at each side of its text (pbem.render.panels)


def picture(board: Board, state: State, *, game: str) -> Scene:
    """The map of ``state`` as a scene for ``pbem.render.picture.render_png``."""
    layout = fit(art_layout(map_art(), REGIONS_TABLE, PANELS), SIZE, NODE)
    owners = region_owners(state, board)
    nodes = []
    for region in board.regions:
        owner = owners.get(region)
        shade = colour(colour_of(state, owner)) if owner else None
        label = say("_picture", "region", region, region == board.start)
        nodes.append(Node(str(region), label, layout.places[str(region)], pale(shade) if shade else LAND,
                          shade or INK, _tokens(state, region), thick=shade is not None))
    continents = continent_owners(board, owners)
    captions = tuple(Caption(_caption(c.text, continents, state), c.at) for c in layout.captions)
    key = (say("_picture", "key_pieces"), say("_picture", "key_lines"))
    return Scene(say("_picture", "title", game, status_view(state, None)), SIZE, tuple(nodes), _links(board),
                 captions, _legend(state), key, NODE, LABEL_SIZE, (_row(board, state),))


def _row(board: Board, state: State) -> Panel:
    """The row: above each place its number and cost (as the board prints them), and the card there with its
    good and what it does (the words of the mails' row); how many cards the deck still holds."""
    long_words = spoken() is not SOURCE
    box = ROW_BOX_LONG_WORDS if long_words else ROW_BOX
    width, gap = (box[2] - box[0] - 12 - 5 * CARD_GAP) // 6, CARD_GAP
    cells = []
    for index, card in enumerate(state.row):
        left = 6 + index * (width + gap)
        good, _, does = card_words(board.cards[card]).partition(": ")
        if long_words:
            good, does = (_hyphenated(text, width - 2 * CELL_PAD, ROW_TEXT_LONG_WORDS) for text in (good, does))
        cells.append(Cell((left, 19, left + width, 38), (say("_picture", "place", index + 1, board.row_costs[index]),)))
        cells.append(Cell((left, 38, left + width, box[3] - box[1] - 4), (good, does), outline=INK,
                          fill=LAND, wrap=True))
    return Panel(say("_picture", "row_title", len(state.deck)), box, tuple(cells),
                 ROW_TEXT_LONG_WORDS if long_words else ROW_TEXT)

def _hyphenated(text: str, width: int, size: float) -> str:
    """``text`` with each word too wide for a card's cell broken with a hyphen where it fills the width
    ("rozmieszcze- nie"): the cell wraps only at spaces, and would cut the word short."""
    face = font(size)
    words = []
    for word in text.split():
        while face.getlength(word) > width:
            fits = next((i for i in range(len(word), 0, -1) if face.getlength(word[:i] + "-") <= width), 1)
            cut = max(1, min(fits, len(word) - 3))  # never a tail of one or two letters on the next line
            words.append(word[:cut] + ("" if word[cut - 1] == "-" else "-"))
            word = word[cut:]
        words.append(word)
    return " ".join(words)


def _tokens(state: State, region: int) -> tuple[Token, ...]:
    """Each colour's armies (R3) and cities (Rc, Rc2) in seating order, then the neutral armies (N2)."""
    tokens = []
    for player in state.seating:
        name = colour_of(state, player)
        letter = name[0].upper()
        armies = state.armies.get(region, {}).get(player, 0)
        cities = state.cities.get(region, {}).get(player, 0)
        if armies:
            tokens.append(Token(f"{letter}{armies}", colour(name)))
        if cities:
            tokens.append(Token(f"{letter}c" + (str(cities) if cities > 1 else ""), colour(name), TokenShape.BUILDING))
    neutral = state.armies.get(region, {}).get(NEUTRAL, 0)
    if neutral:
        tokens.append(Token(f"N{neutral}", NEUTRAL_COLOUR))
    return tuple(tokens)


def _links(board: Board) -> tuple[Link, ...]:
    """Every land link (solid) and sea line (dashed) of the map data, once each."""
    links = []
    for links_of, style in ((board.land, LinkStyle.LAND), (board.water, LinkStyle.SEA)):
        links += [Link(str(a), str(b), style) for a in board.regions for b in sorted(links_of[a]) if a < b]
    return tuple(links)


def _caption(title: str, continents: dict[str, str], state: State) -> str:
    """A panel's title as its continent's name, with who controls it: 'Continent C: ann (red)'."""
    found = CONTINENT.match(title)
    if found is None:
        return title
    owner = continents.get(found.group(1))
    name = say("_picture", "continent", found.group(1))
    return say("_picture", "caption", name, owner, colour_of(state, owner) if owner else None)


def _legend(state: State) -> tuple[LegendEntry, ...]:
    """Each player's colour, then the neutral armies' grey in the variant that has them."""
    entries = [LegendEntry(colour(colour_of(state, p)), say("_picture", "player", p, colour_of(state, p), state.coins[p]))
               for p in state.seating]
    if state.neutral_armies() or Variant.NEUTRAL in state.setup.variants:
        entries.append(LegendEntry(NEUTRAL_COLOUR, say("_picture", "neutral")))
    return tuple(entries)
