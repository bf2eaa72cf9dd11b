"""Real-world order texts, as players type them in mail clients, and the exact reply each gets.

Each row is one message body sent by one player in a fixed position, and
what ``pbem.games.imperial2030.orders.apply_message`` makes of it: the lines applied (as
canonical orders, with their line numbers), the report requests found, or
the refused line with its number, the kind of refusal, the reason word for
word and the "did you mean" suggestions, and the numbers of the lines not
applied. Typos, abbreviations and prefixes, mixed case, signatures (also
the dash a phone makes of "--"), quoted replies, lines broken by a phone,
";" separated orders, comments, END, typographic quotes and dashes, HTML
left in a plain-text body, list markers, empty messages.

The mail layer (``pbem.mail``) removes attribution lines, Outlook headers
and format=flowed breaks before the text gets here; this table is the order
layer's part.

Positions (see tests/games/imperial2030/test_orders.py): ``start``, Russia's (ann's) first
rondel choice in a three-player game; ``investor``, bob invests with the
investor card after Russia stopped on Investor; ``suez``, Europe (ann)
maneuvers with fleets in Rome and the Mediterranean and an army in Paris;
``canal``, bob (India) is asked to let Europe's fleet through Suez;
``battle``, bob is asked whether India's fleet fights Europe's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.mails import render_error
from pbem.games.imperial2030.orders import MessageResult, apply_message, format_action
from pbem.render import problems
from tests.imperialpositions import battle_question, canal_question, suez_position, three_players

BOARD = default_board()


@dataclass(frozen=True)
class Reply:
    """What a message led to, in the terms a player reads in the reply."""

    applied: tuple[tuple[int, str], ...] = ()  # (line number, the order as applied)
    queries: tuple[tuple[int, str], ...] = ()  # (line number, the report asked for)
    refused: tuple[int | None, str, str, tuple[str, ...]] | None = None  # line, kind, reason, did you mean
    not_applied: tuple[int, ...] = ()  # line numbers quoted back as not applied
    waits: str | None = None  # the player whose answer the rest of the message waits for


def reply_of(result: MessageResult) -> Reply:
    error = result.error
    queries = []
    for q in result.queries:
        words = [q.query.kind.value.upper()]
        if q.query.topic is not None:
            words.append(q.query.topic)
        if q.query.count is not None:
            words.append(str(q.query.count))
        queries.append((q.line.number, " ".join(words)))
    return Reply(
        applied=tuple((a.line.number, format_action(BOARD, a.action)) for a in result.applied),
        queries=tuple(queries),
        refused=None if error is None else (error.line_number, type(error).__name__, error.reason, error.suggestions),
        not_applied=tuple(line.number for line in result.not_applied),
        waits=result.question.player if result.question is not None else None,
    )


def case(position: str, player: str, text: str, **expected: Any) -> Any:
    first = text.splitlines()[0] if text.strip() else repr(text)
    return pytest.param(position, player, text, Reply(**expected), id=f"{position}-{player}-{first[:40]}")


CASES = [
    # --- Typos, abbreviations, prefixes and mixed case
    case("start", "ann", "RONDLE taxation",
         refused=(1, "OrderSyntaxError", "'RONDLE' is not an order.", ("RONDEL",)),
         not_applied=(1,)),
    case("start", "ann", "ron tax", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "Rondel Investor", applied=((1, "RONDEL investor"),)),
    case("start", "ann", "RONDEL   TAXATION  ", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL\ttaxation", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "rondel prod", applied=((1, "RONDEL production_1"),)),
    case("start", "ann", "RONDEL production far", applied=((1, "RONDEL production_2"),)),
    case("start", "ann", "rondel man far", applied=((1, "RONDEL maneuver_2"),)),
    case("start", "ann", "rondel invester",
         refused=(1, "UnknownName",
                  "'invester' names no rondel space (Factory, Production, Maneuver, Investor, Import, Taxation).",
                  ("Investor",)),
         not_applied=(1,)),
    case("start", "ann", "r tax", refused=(1, "OrderSyntaxError", "'r' is not an order.", ()), not_applied=(1,)),
    case("start", "ann", "RONDEL import\nIMPORT 2 army mosc",
         applied=((1, "RONDEL import"), (2, "IMPORT army Moscow, army Moscow"))),
    case("start", "ann", "RONDEL import\nIMPORT 2 army mosc, fleet vlad",
         applied=((1, "RONDEL import"), (2, "IMPORT army Moscow, army Moscow, fleet Vladivostok"))),
    case("start", "ann", "rondel IMPORT\nimprot army moscow",
         applied=((1, "RONDEL import"),),
         refused=(2, "OrderSyntaxError", "'improt' is not an order.", ("IMPORT",)),
         not_applied=(2,)),
    case("start", "ann", "RONDEL import\nIMPORT army Pekin",
         applied=((1, "RONDEL import"),),
         refused=(2, "UnknownName",
                  "'Pekin' names no home province of Russia (Moscow, Novosibirsk, Murmansk, Vladivostok).",
                  ("Beijing",)),
         not_applied=(2,)),
    case("start", "ann", "RONDEL factory\nBUILD novosib", applied=((1, "RONDEL factory"), (2, "BUILD Novosibirsk"))),
    case("start", "ann", "RONDEL production\nPRODUCE all", applied=((1, "RONDEL production_1"), (2, "PRODUCE"))),
    case("start", "ann", "donate 1 to RU", applied=((1, "DONATE 1 TO Russia"),)),
    case("start", "ann", "HeLp RoNdEl", queries=((1, "HELP RoNdEl"),)),
    case("investor", "bob", "BUY china 4", applied=((1, "BUY China 4"),)),
    case("investor", "bob", "buy 4 chinese", applied=((1, "BUY China 4"),)),
    case("investor", "bob", "invest 4 india", applied=((1, "BUY India 4"),)),
    case("investor", "bob", "UPGRADE China 9 → 12", applied=((1, "UPGRADE China 9 TO 12"),)),
    case("investor", "bob", "BUY Chna 4",
         refused=(1, "UnknownName",
                  "'Chna' names no nation (Russia, China, India, Brazil, USA, Europe).",
                  ("China",)),
         not_applied=(1,)),
    case("investor", "bob", "no investment", applied=((1, "PASS"),)),
    case("suez", "ann", "fleet rom to med", applied=((1, "FLEET Rome TO Mediterranean Sea"),)),
    case("suez", "ann", "ARMY Paris TO N",
         refused=(1, "AmbiguousName",
                  "'N' could be North Africa or Near East; write more of the name.",
                  ("North Africa", "Near East")),
         not_applied=(1,)),
    case("suez", "ann", "army paris to mumbia hostile",
         refused=(1, "UnknownName", "'mumbia' names no region.", ("Mumbai", "Colombia")),
         not_applied=(1,)),
    case("suez", "ann", "army paris to mumbai hostil",
         refused=(1, "OrderSyntaxError",
                  "'hostil' is not a word of the order; did you mean HOSTILE? Write: ARMY <from> TO <to> "
                  "[HOSTILE|FRIENDLY] [ATTACK <nation> [ARMY|FLEET]] [VIA <sea>, <sea>, ...].",
                  ("HOSTILE",)),
         not_applied=(1,)),
    case("suez", "ann", "finish", applied=((1, "DONE"),)),
    case("canal", "bob", "allow", applied=((1, "ALLOW"),)),
    case("canal", "bob", "Allow.", applied=((1, "ALLOW"),)),
    case("canal", "bob", "ALOW",
         refused=(1, "OrderSyntaxError", "'ALOW' is not an order.", ("ALLOW",)),
         not_applied=(1,)),
    case("battle", "bob", "fite",
         refused=(1, "OrderSyntaxError", "'fite' is not an order.", ("FIGHT",)),
         not_applied=(1,)),
    case("battle", "bob", "no",
         refused=(1, "OrderSyntaxError", "'no' is not an order.", ("NO FIGHT", "PASS", "NO FORCE")),
         not_applied=(1,)),
    case("battle", "bob", "NO-FIGHT", applied=((1, "NO FIGHT"),)),
    case("battle", "bob", "fight india fleet", applied=((1, "FIGHT India fleet"),)),
    case("start", "ann", "RONDEL import\nIMPORT tank moscow, boat vlad",
         applied=((1, "RONDEL import"), (2, "IMPORT army Moscow, fleet Vladivostok"))),
    # --- Diplomacy habits: A/F, dashes and arrows for TO
    case("suez", "ann", "A Paris - London", applied=((1, "ARMY Paris TO London"),)),
    case("suez", "ann", "F Rome - Med\nF Med - Ind\nA Paris - London",
         applied=((1, "FLEET Rome TO Mediterranean Sea"), (2, "FLEET Mediterranean Sea TO Indian Ocean")),
         waits="bob"),
    case("suez", "ann", "army paris → london; done", applied=((1, "ARMY Paris TO London"), (1, "DONE"))),
    case("suez", "ann", "move army paris to london",
         refused=(1, "OrderSyntaxError", "'move' is not an order.", ("ARMY",)),
         not_applied=(1,)),
    # --- Signatures, quoted replies, comments, END, empty messages
    case("start", "ann", "RONDEL taxation\n-- \nSent from my phone", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL taxation\n—\nSent from my iPhone", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "> RONDEL investor\nRONDEL taxation", applied=((2, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL investor\n\n> On Monday you wrote:\n> RONDEL taxation",
         applied=((1, "RONDEL investor"),)),
    case("start", "ann", "RONDEL taxation # money first", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "# just a comment"),
    case("start", "ann", "RONDEL taxation\nEND\nRONDEL import", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "END\nRONDEL taxation"),
    case("start", "ann", ""),
    case("start", "ann", "   \n\n"),
    case("start", "ann", "Rondel Taxation\r\nSTATUS\r\n",
         applied=((1, "RONDEL taxation"),),
         queries=((2, "STATUS"),)),
    # greetings and thanks around the orders are set aside, not refused (tests/games/imperial2030/test_courtesy_lines.py)
    case("start", "ann", "Hi,\n\nRONDEL taxation\n\nThanks!", applied=((3, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL taxation\nThanks, Ann", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL\ttaxation\n\n\n-- \nAnn", applied=((1, "RONDEL taxation"),)),
    # --- Lines broken by a phone: refused clearly, nothing guessed
    case("start", "ann", "RONDEL import\nIMPORT army Moscow,\narmy Murmansk",
         applied=((1, "RONDEL import"),),
         refused=(2, "OrderSyntaxError",
                  "The list ends with ',': is the rest of the order on the next line? An order must stay on one "
                  "line. Write: IMPORT  or  IMPORT <army|fleet> <province>, ...  (e.g. IMPORT 2 army Moscow, fleet "
                  "Vladivostok).",
                  ()),
         not_applied=(2, 3)),
    case("start", "ann", "RONDEL\nimport",
         refused=(1, "OrderSyntaxError",
                  "Which space? Write: RONDEL <space>  (investor, import, production [far], maneuver [far], "
                  "taxation, factory).",
                  ()),
         not_applied=(1, 2)),
    case("suez", "ann", "ARMY Paris TO\nMumbai HOSTILE",
         refused=(1, "OrderSyntaxError",
                  "To where? Write: ARMY <from> TO <to> [HOSTILE|FRIENDLY] [ATTACK <nation> [ARMY|FLEET]] [VIA "
                  "<sea>, <sea>, ...].",
                  ()),
         not_applied=(1, 2)),
    # --- Several orders on a line
    case("start", "ann", "RONDEL import; IMPORT army moscow, fleet vladivostok",
         applied=((1, "RONDEL import"), (1, "IMPORT army Moscow, fleet Vladivostok"))),
    case("start", "ann", "RONDEL import; IMPORT army moscow; fleet vlad",  # ";" ends the IMPORT: China's turn now
         applied=((1, "RONDEL import"), (1, "IMPORT army Moscow")),
         refused=(1, "NotYourTurn", "ann has nothing to decide now: the game waits for bob (rondel for China).", ()),
         not_applied=(1,)),
    case("start", "ann", "RONDEL taxation ;; STATUS", applied=((1, "RONDEL taxation"),), queries=((1, "STATUS"),)),
    case("start", "ann", "RONDEL import\nIMPORT army Moscow & fleet Vladivostok",
         applied=((1, "RONDEL import"), (2, "IMPORT army Moscow, fleet Vladivostok"))),
    case("start", "bob", "STANDING NO FIGHT usa\nSTANDING CLEAR",
         applied=((1, "STANDING NO FIGHT USA"), (2, "STANDING CLEAR"))),
    # --- Phones, word processors and webmail: typographic quotes, dashes, spaces, HTML, list markers
    case("start", "ann", "“RONDEL taxation”", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL ‘taxation’", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", 'RONDEL "taxation"', applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL taxation\xa0", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "don’t force",
         refused=(1, "IllegalOrder", "That does not answer the open decision: a rondel space.", ()),
         not_applied=(1,)),
    case("battle", "bob", "Don’t fight", applied=((1, "NO FIGHT"),)),
    case("suez", "ann", "Fleet Mediterranean —> Indian Ocean",
         applied=((1, "FLEET Mediterranean Sea TO Indian Ocean"),),
         waits="bob"),
    case("suez", "ann", "army paris to rio de janeiro’s",
         refused=(1, "UnknownName", '"rio de janeiro\'s" names no region.', ("Rio de Janeiro",)),
         not_applied=(1,)),
    case("start", "ann", "<div>RONDEL import<br>IMPORT army moscow</div>",
         applied=((1, "RONDEL import"), (1, "IMPORT army Moscow"))),
    case("start", "ann", "&gt; RONDEL investor\nRONDEL taxation", applied=((2, "RONDEL taxation"),)),
    case("start", "ann", "1. RONDEL import\n2. IMPORT army Moscow, fleet Vladivostok",
         applied=((1, "RONDEL import"), (2, "IMPORT army Moscow, fleet Vladivostok"))),
    case("start", "ann", "RONDEL: taxation", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL taxation!", applied=((1, "RONDEL taxation"),)),
    case("investor", "bob", "buy €4 china", applied=((1, "BUY China 4"),)),
    case("start", "ann", "DONATE $1 TO Russia", applied=((1, "DONATE 1 TO Russia"),)),
    case("start", "ann", "<b>RONDEL</b> taxation", applied=((1, "RONDEL taxation"),)),
    case("start", "ann", "RONDEL import<br/>IMPORT army moscow &amp; fleet vlad",
         applied=((1, "RONDEL import"), (1, "IMPORT army Moscow, fleet Vladivostok"))),
    # --- Sentences and words around orders
    case("start", "ann", "STATUS?\nOPTIONS", queries=((1, "STATUS"), (2, "OPTIONS"))),
    case("start", "ann", "status please", queries=((1, "STATUS"),)),  # courtesy at the end is no word of it
    case("start", "ann", "history 5\nHELP army", queries=((1, "HISTORY 5"), (2, "HELP army"))),
    case("start", "ann", "history all",
         refused=(1, "OrderSyntaxError", "HISTORY takes a number of events, not 'all'. Write: HISTORY [n].", ()),
         not_applied=(1,)),
    case("investor", "bob", "PASS, thanks", applied=((1, "PASS"),)),
    case("investor", "bob", "Buy China four",
         refused=(1, "OrderSyntaxError", "A nation and a bond value are needed. Write: BUY <nation> <value>.", ()),
         not_applied=(1,)),
    case("canal", "bob", "yes", refused=(1, "OrderSyntaxError", "'yes' is not an order.", ()), not_applied=(1,)),
    case("canal", "bob", "Deny passage",
         refused=(1, "OrderSyntaxError", "DENY takes nothing after it, not 'passage'. Write: DENY.", ()),
         not_applied=(1,)),
    case("canal", "bob", "deny!", applied=((1, "DENY"),)),
    case("canal", "bob", "PASS", applied=((1, "ALLOW"),)),
    case("start", "ann", "RONDEL taxation?",  # a question is no order: asked back, not applied
         refused=(1, "UnknownName",
                  "'taxation?' names no rondel space (Factory, Production, Maneuver, Investor, Import, Taxation).",
                  ("Taxation",)),
         not_applied=(1,)),
    case("start", "ann", "Done?",
         refused=(1, "OrderSyntaxError", "'Done?' is not an order.", ("DONATE", "DONE")), not_applied=(1,)),
    case("start", "ann", "RONDEL import\nIMPORT <army|fleet> <province>, ...",  # the form copied from HELP
         applied=((1, "RONDEL import"),),
         refused=(2, "UnknownName", "'<army|fleet>' names no unit kind (army, fleet).", ()),
         not_applied=(2,)),
    # --- Readable, but not legal now (or not the sender's to give)
    case("start", "ann", "IMPORT army moscow",
         refused=(1, "IllegalOrder", "That does not answer the open decision: a rondel space.", ()),
         not_applied=(1,)),
    case("start", "bob", "rondel taxation",
         refused=(1, "NotYourTurn", "bob has nothing to decide now: the game waits for ann (rondel for Russia).", ()),
         not_applied=(1,)),
    case("start", "ann", "RONDEL taxation\nRONDEL import",
         applied=((1, "RONDEL taxation"),),
         refused=(2, "NotYourTurn", "ann has nothing to decide now: the game waits for bob (rondel for China).", ()),
         not_applied=(2,)),
    case("start", "ann", "RONDEL import\nIMPORT army Moscow, army Moscow, army Moscow, army Moscow",
         applied=((1, "RONDEL import"),),
         refused=(2, "IllegalOrder", "At most 3 units may be imported.", ()),
         not_applied=(2,)),
    case("investor", "bob", "BUY china 9",
         refused=(1, "IllegalOrder", "The China 9 bond is not in stock (in stock: 4, 6, 12, 16, 20, 25, 30).", ()),
         not_applied=(1,)),
    case("investor", "bob", "BUY 4",
         refused=(1, "OrderSyntaxError", "Which nation? Write: BUY <nation> <value>.", ()),
         not_applied=(1,)),
    case("suez", "ann", "ARMY Paris TO London\nARMY Paris TO Berlin",
         applied=((1, "ARMY Paris TO London"),),
         refused=(2, "IllegalOrder", "Europe has no army in Paris that can still move.", ()),
         not_applied=(2,)),
    case("suez", "ann", "FLEET Rome TO Med ATTACK India army",
         refused=(1, "OrderSyntaxError",
                  "A fleet attacks fleets only. Write: FLEET <from> TO <to> [ATTACK <nation>].",
                  ()),
         not_applied=(1,)),
    case("canal", "ann", "DONE",
         refused=(1, "NotYourTurn", "ann has nothing to decide now: the game waits for bob (canal for India).", ()),
         not_applied=(1,)),
    case("battle", "bob", "FIGHT Europe",
         refused=(1, "IllegalOrder", "The question is for India.", ()),
         not_applied=(1,)),
]


def investor() -> GameState:
    return apply_message(three_players(), "ann", "RONDEL investor").state


@pytest.fixture(scope="module")
def positions() -> dict[str, GameState]:
    suez = suez_position()
    return {"start": three_players(), "investor": investor(), "suez": suez, "canal": canal_question(suez),
            "battle": battle_question(suez)}


@pytest.mark.parametrize(("position", "player", "text", "expected"), CASES)
def test_real_world_order_text(positions: dict[str, GameState], position: str, player: str, text: str,
                               expected: Reply) -> None:
    state = positions[position]
    result = apply_message(state, player, text)
    assert reply_of(result) == expected
    if result.error is not None:
        assert result.error.legal, "a refusal says what is legal now"
        mail = render_error(result.state, player, result, game="atlas")
        assert problems(mail) == []
        assert f"line {result.error.line_number}" in mail.lower()


def test_the_table_is_broad() -> None:
    assert len(CASES) >= 40
    kinds = {p.values[3].refused[1] for p in CASES if p.values[3].refused}
    assert kinds >= {"OrderSyntaxError", "UnknownName", "AmbiguousName", "IllegalOrder", "NotYourTurn"}
