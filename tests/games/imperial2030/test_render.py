"""Reports, prompts and mails (pbem.render, templates/): golden files and the mail limits.

Each template is rendered for a few fixed positions and compared with a file
in tests/golden/. The goldens were read by eye once; from then on they guard
the text. After a deliberate change, regenerate and review the diff:

    PBEM_REGEN_GOLDEN=1 python3 -m pytest tests/games/imperial2030/test_render.py

Every text must be pure ASCII with no line over 78 columns (a mail client at
its default width); the templates are rendered in strict mode, which raises
instead of wrapping, so a template that breaks the limits fails here.
"""
from __future__ import annotations

import os
import random
import re
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.imperial2030.actions import ArmyMove, ChooseSpace, Done, Fight, FleetMove, SetStanding
from engine.imperial2030.decisions import pending
from engine.imperial2030.game import apply
from engine.imperial2030.model import GameSetup, GameState, Seat, StandingKind, StandingOrder, Variant
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.scoring import final_scores
from engine.imperial2030.setup import new_game
from pbem.games.imperial2030.board import board_art, draw_board, nation_codes
from pbem.games.imperial2030.mails import (
    check_board_art,
    check_rondel_art,
    prompt_view,
    region_tokens,
    render_board,
    render_error,
    render_game_end,
    render_prompt,
    render_report,
    render_rondel,
    render_welcome,
)
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import apply_message, parse_order
from pbem.moderator import Moderator
from pbem.render import problems
from pbem.render.art import ArtError, check_art, fill_panel, parse_art
from pbem.render.text import asciify, finish, pair, wrap
from pbem.store import Database
from tests.helpers import BOARD, new, play, standard_game, swiss_bank, turn_of
from tests.imperialpositions import GOLDEN, busy, finished, russia_maneuvers, start

REGENERATE = os.environ.get("PBEM_REGEN_GOLDEN") == "1"
GAME = "atlas"
DEADLINE = datetime(2030, 5, 3, 18, 0, tzinfo=UTC)


def check_mail(text: str) -> None:
    """The limits every mail keeps: ASCII, at most 78 columns, no trailing blanks, one final newline."""
    assert problems(text) == []
    assert text.endswith("\n") and not text.endswith("\n\n")


def golden(name: str, text: str) -> None:
    check_mail(text)
    path = GOLDEN / f"{name}.txt"
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="ascii")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path.name}; create it with PBEM_REGEN_GOLDEN=1 and read it by eye")
    assert text == path.read_text(encoding="ascii"), (
        f"{path.name} differs; if the change is meant, regenerate with PBEM_REGEN_GOLDEN=1 and review the diff")


# --- positions -----------------------------------------------------------------------------------


def russia_maneuver_events() -> tuple[GameState, list]:
    """Russia's maneuver on the busy board: a fleet battle in the China Sea, an army by sea to Guinea, flags."""
    state = turn_of(busy(), "russia", rondel="factory")
    events: list = []
    for player, action in [
        ("Anna", ChooseSpace("maneuver_1")),
        ("Anna", FleetMove("seaofjapan", "chinasea")),
        ("Ben", Fight(True, "china")),
        ("Anna", ArmyMove("moscow", "guinea")),
        ("Anna", Done()),
    ]:
        state, new_events = apply(state, player, action)
        events += new_events
    return state, events


def test_board_art_has_a_slot_for_every_region_and_fits_mail() -> None:
    assert check_board_art(BOARD) == []
    art = board_art()
    codes = art.codes_of("regions")
    assert set(codes) == set(BOARD.regions) and len(codes) == 62
    drawn = set().union(*(p.codes() for p in art.panels))
    assert {codes[r] for r in BOARD.regions} <= drawn
    for panel in art.panels:
        assert all(len(line) <= 78 and line.isascii() for line in panel.lines), panel.title
    assert [p.title for p in art.panels] == ["THE AMERICAS", "EUROPE, AFRICA AND THE MIDDLE EAST",
                                             "ASIA AND THE PACIFIC"]
    assert set(nation_codes(BOARD).values()) == {"RU", "CN", "IN", "BR", "US", "EU"}


def test_rondel_art_has_a_slot_for_every_space() -> None:
    assert check_rondel_art(BOARD) == []


def test_art_problems_are_found() -> None:
    art = parse_art("# a map\n== regions ==\nALA alaska\nXYZ atlantis\n== panel: P ==\n| {ALA...} |\n"
                    + "x" * 79 + "\n|caf\u00e9|\n")
    found = "\n".join(check_art(art, "regions", ["alaska", "canada"]))
    assert "canada has no code" in found
    assert "XYZ names atlantis, which is not known here" in found
    assert "atlantis (XYZ) has no slot" in found
    assert "line 2 is 79 columns" in found
    assert "line 3 is not pure ASCII" in found
    for bad in ["stray text\n== panel: P ==\nx\n", "== regions ==\nALA\n== panel: P ==\n",
                "== regions ==\nALA a\nALA b\n== panel: P ==\n{ALA}\n", "== regions ==\nALA a\n",
                "== panel: P ==\n{ala}\n"]:
        with pytest.raises(ArtError):
            parse_art(bad)


def test_slots_flow_and_overflow_is_told_in_full() -> None:
    art = parse_art("== regions ==\nABC a\n== panel: P ==\n[{ABC....}]\n[{ABC....}]\n")
    filled = fill_panel(art.panels[0], {"ABC": ["RUa1", "CNa2", "EUf1", "USa3", "INa1"]})
    assert filled.lines == ("[RUa1 CNa2]", "[EUf1 +   ]")
    assert filled.notes == (("ABC", "RUa1 CNa2 EUf1 USa3 INa1"),)
    assert fill_panel(art.panels[0], {}).lines == ("[         ]", "[         ]")
    assert fill_panel(art.panels[0], {"ABC": ["RUa1"]}).lines == ("[RUa1     ]", "[         ]")


def test_every_piece_on_the_busy_board_is_shown() -> None:
    state = busy()
    state.nations["china"].armies["ukraine"] = 3  # Ukraine now holds four nations: more than its slots
    state.nations["india"].armies["ukraine"] = 1
    drawn = draw_board(state)
    art = board_art()
    codes = art.codes_of("regions")
    notes = "\n".join(drawn.notes())
    for panel, filled in zip(art.panels, drawn.panels, strict=True):
        for code in panel.codes():
            region = art.ids("regions")[code]
            shown = " ".join(filled.lines[s.line][s.start:s.start + s.width].strip()
                             for s in panel.slots if s.code == code).split()
            tokens = region_tokens(state, region)
            if shown and shown[-1] == "+":
                assert f"{code} ({region}): {' '.join(tokens)}" in notes
                assert shown[:-1] == tokens[:len(shown) - 1]
            else:
                assert shown == tokens, (region, shown, tokens)
    assert set(codes) == set(BOARD.regions)
    assert "UKR (ukraine): ^RU RUa2 CNa3 INa1 USa1 EUa1" in notes
    assert region_tokens(state, "beijing") == ["[A]", "CNa2", "RUh1"]
    assert region_tokens(state, "mumbai") == ["[S]", "INa1", "EUh1"]
    assert region_tokens(state, "neworleans") == ["[S]", "USf1"]
    assert region_tokens(state, "mediterraneansea") == ["^EU", "EUf2"]


# --- goldens ----------------------------------------------------------------------------------------


def test_golden_board_at_the_start() -> None:
    golden("board_start", render_board(start()[0], game=GAME, strict=True))


def test_golden_board_busy() -> None:
    state = busy()
    state.nations["china"].armies["ukraine"] = 3
    golden("board_busy", render_board(state, game=GAME, strict=True))


def test_golden_rondel_busy() -> None:
    golden("rondel_busy", render_rondel(busy(), strict=True))


def test_golden_report_at_the_start() -> None:
    state, events = start()
    golden("report_start_anna", render_report(state, "Anna", events, game=GAME, board=False, strict=True))


def test_golden_report_after_a_maneuver() -> None:
    state, events = russia_maneuver_events()
    golden("report_maneuver_finn", render_report(state, "Finn", events, game=GAME, strict=True))


def test_golden_report_with_open_cash() -> None:
    state, _ = start()
    after, events = play(state, ChooseSpace("investor"))
    golden("report_open_cash_eva",
           render_report(after, "Eva", events, game=GAME, open_cash=True, board=False, strict=True))


def test_golden_prompt_first_rondel_move() -> None:
    golden("prompt_rondel_first", render_prompt(start()[0], "Anna", game=GAME, strict=True))


def test_golden_prompt_rondel_with_costs() -> None:
    golden("prompt_rondel_costs", render_prompt(busy(), "Finn", game=GAME, deadline=DEADLINE, strict=True))


def test_golden_prompt_investor_card() -> None:
    state, _ = play(start()[0], ChooseSpace("investor"))
    golden("prompt_investor", render_prompt(state, "Ben", game=GAME, deadline=DEADLINE, strict=True))


def test_golden_prompt_import() -> None:
    state, _ = play(busy(), ChooseSpace("import"))
    golden("prompt_import", render_prompt(state, "Finn", game=GAME, strict=True))


def test_golden_prompt_production() -> None:
    state, _ = play(busy(), ChooseSpace("production_1"))
    golden("prompt_production", render_prompt(state, "Finn", game=GAME, strict=True))


def test_golden_prompt_factory() -> None:
    state, _ = play(turn_of(busy(), "russia", rondel="taxation"), ChooseSpace("factory"))
    golden("prompt_factory", render_prompt(state, "Anna", game=GAME, strict=True))


def test_golden_prompt_force_stop() -> None:
    state = swiss_bank(standard_game(), "Finn", "Eva")
    state = turn_of(state, "russia", rondel="maneuver_1")
    state, _ = play(state, ChooseSpace("import"))
    golden("prompt_force_stop", render_prompt(state, "Finn", game=GAME, deadline="Sunday noon", strict=True))


def test_golden_prompt_maneuver() -> None:
    golden("prompt_maneuver", render_prompt(russia_maneuvers(), "Anna", game=GAME, strict=True))


def test_golden_prompt_battle() -> None:
    state, _ = play(russia_maneuvers(), FleetMove("seaofjapan", "chinasea"))
    golden("prompt_battle", render_prompt(state, "Ben", game=GAME, strict=True))


def test_golden_prompt_canal() -> None:
    state = busy()
    state.nations["europe"].flags.remove("northafrica")
    state.nations["india"].flags.append("northafrica")
    state.nations["europe"].armies.pop("northafrica")
    state, _ = play(state, ChooseSpace("maneuver_1"))
    state, _ = play(state, FleetMove("mediterraneansea", "indianocean"))
    golden("prompt_canal", render_prompt(state, "Cleo", game=GAME, strict=True))


def test_golden_prompt_expert_setup_bond() -> None:
    state, _ = new(("Anna", "Ben", "Cleo"), variants=[Variant.EXPERT], start_player="Ben")
    golden("prompt_setup_bond", render_prompt(state, "Ben", game=GAME, strict=True))


def test_golden_welcome() -> None:
    state, _ = start()
    golden("welcome_anna", render_welcome(state, "Anna", game=GAME, reply_to="moderator+7f3a9c@pbem.example.org",
                                          strict=True))


def test_golden_welcome_expert_without_a_nation() -> None:
    state, _ = new(("Anna", "Ben", "Cleo"), variants=[Variant.EXPERT], start_player="Ben")
    golden("welcome_expert_cleo", render_welcome(state, "Cleo", game=GAME, open_cash=True, strict=True))


def test_golden_error_not_your_turn() -> None:
    result = apply_message(start()[0], "Anna", "RONDEL investor\nBUY Chna 4\nRONDEL taxation\n-- \nAnna")
    assert result.error is not None
    golden("error_not_your_turn", render_error(result.state, "Anna", result, game=GAME, strict=True))


def test_golden_error_unknown_name() -> None:
    result = apply_message(start()[0], "Anna", "# my first move\nRONDEL factry")
    golden("error_unknown_name", render_error(result.state, "Anna", result, game=GAME, strict=True))


def test_golden_error_illegal_order() -> None:
    result = apply_message(busy(), "Finn", "RONDEL taxation; BUILD Rome")
    golden("error_illegal", render_error(result.state, "Finn", result, game=GAME, strict=True))


def test_golden_game_end() -> None:
    state, events = finished()
    golden("game_end", render_game_end(state, "Finn", events, game=GAME, strict=True))


def test_golden_game_end_with_a_tie_break() -> None:
    state, events = finished(tie=True)
    scores = dict(state.scores or {})
    assert scores["Anna"] == scores["Ben"]
    golden("game_end_tie", render_game_end(state, "Anna", events, game=GAME, strict=True))


# --- what the texts say ------------------------------------------------------------------------------


def test_report_shows_own_cash_and_others_only_with_open_cash() -> None:
    state = busy()
    hidden = render_report(state, "Finn", board=False, strict=True)
    assert "6 Finn (you): governs Europe; cash 8" in hidden
    assert "1 Anna: governs Russia\n" in hidden
    assert "cash 6" not in hidden
    assert "the others' is secret" in hidden
    shown = render_report(state, "Finn", open_cash=True, board=False, strict=True)
    assert "1 Anna: governs Russia; cash 6" in shown
    assert "3 Cleo: governs India; investor card; cash 11" in shown


def test_report_tells_whose_turn_and_who_is_waited_for() -> None:
    state, _ = play(start()[0], ChooseSpace("investor"))
    text = render_report(state, "Anna", board=False, strict=True)
    assert "Round 1: Russia's turn (Anna), in the investor round." in text
    assert "- Ben: invest with the investor card\n" in text
    assert "(that is you" not in text
    assert "(that is you: see the prompt)" in render_report(state, "Ben", board=False, strict=True)


def test_report_includes_the_board_unless_asked_not_to() -> None:
    state = busy()
    assert "-- ASIA AND THE PACIFIC" in render_report(state, "Anna", strict=True)
    assert "-- ASIA AND THE PACIFIC" not in render_report(state, "Anna", board=False, strict=True)


def test_prompt_only_for_a_player_who_decides() -> None:
    state = start()[0]
    assert render_prompt(state, "Ben") is None
    assert prompt_view(state, "Ben") is None
    assert render_prompt(state, "Anna") is not None
    with pytest.raises(ValueError, match="not a player"):
        render_prompt(state, "Zed")


def test_prompt_deadline_line() -> None:
    state, _ = play(start()[0], ChooseSpace("investor"))
    text = render_prompt(state, "Ben", deadline=DEADLINE, strict=True)
    assert "Please answer by Friday 2030-05-03 18:00 UTC." in text
    assert "Without an answer by the deadline, the game takes: PASS." in text
    assert "Please answer by" not in render_prompt(state, "Ben", strict=True)


def test_prompt_rondel_costs_and_reach() -> None:
    text = " ".join(render_prompt(busy(), "Finn", strict=True).split())
    assert "RONDEL import Import, 4 spaces, costs 4, passes Investor" in text
    assert "RONDEL production_2 Production, 5 spaces, costs 8, passes Investor" in text
    assert "Out of reach now: maneuver_2 (6 spaces) would cost 12; you have 8." in text


def test_prompt_investment_tells_what_it_does_to_governments() -> None:
    state, _ = play(start()[0], ChooseSpace("investor"))
    state = state.clone()
    state.players["Ben"].cash = 20
    text = " ".join(render_prompt(state, "Ben", strict=True).split())
    assert "BUY Russia 12 costs 12, interest 5; you would take it over from Anna (12 against 9)" in text
    assert "UPGRADE China 9 TO 16 costs 7, interest 4 -> 6" in text


def _decisions_with_prompts(state: GameState):  # type: ignore[no-untyped-def]
    for decision in pending(state):
        yield decision.player, prompt_view(state, decision.player)


@pytest.mark.parametrize("position", ["start", "busy", "investor", "import", "production", "maneuver", "battle"])
def test_prompt_examples_are_accepted_and_options_parse(position: str) -> None:
    state = {
        "start": lambda: start()[0],
        "busy": busy,
        "investor": lambda: play(start()[0], ChooseSpace("investor"))[0],
        "import": lambda: play(busy(), ChooseSpace("import"))[0],
        "production": lambda: play(busy(), ChooseSpace("production_1"))[0],
        "maneuver": russia_maneuvers,
        "battle": lambda: play(russia_maneuvers(), FleetMove("seaofjapan", "chinasea"))[0],
    }[position]()
    for player, view in _decisions_with_prompts(state):
        assert view is not None
        for decision in view.decisions:
            assert 2 <= len(decision.examples) <= 3 or position == "battle"
            for example in decision.examples:
                result = apply_message(state, player, "\n".join(example))
                assert result.error is None, (example, result.error)
            for group in decision.groups:
                for option in group.options:
                    if "<" not in option.order:
                        parse_order(state, player, option.order)


def test_standing_orders_stay_secret_in_reports() -> None:
    state = start()[0]
    state, events = apply(state, "Cleo", SetStanding(StandingOrder(StandingKind.NO_FIGHT, "russia")))
    assert narrate(BOARD, events, viewer="Cleo") == ["Cleo set a standing order: never fight Russia."]
    assert narrate(BOARD, events, viewer="Anna") == []
    assert "standing order" not in render_report(state, "Anna", events, board=False, strict=True)


def test_error_reply_from_a_moderator_refusal() -> None:
    state = start()[0]
    refusal = SimpleNamespace(reason="The message holds no orders.", line_number=None, line=None, legal=(),
                              suggestions=(), not_applied=(), waiting_for=(), kind="refused")
    text = render_error(state, "Ben", refusal, game=GAME, strict=True)
    assert "Your message was refused." in text
    assert "The message holds no orders." in text
    assert "- Anna: choose a rondel space for Russia" in text
    refusal = SimpleNamespace(reason="Nope.", line_number=2, line="BUY R\u00fcssia 4", legal=("PASS",),
                              suggestions=("Russia",), not_applied=((2, "BUY R\u00fcssia 4"), (3, "DONE")),
                              waiting_for=(), kind="UnknownName")
    text = render_error(state, "Anna", refusal, game=GAME, strict=True)
    assert "line 2: BUY Russia 4" in text and "line 3: DONE" in text and "Did you mean: Russia?" in text


def test_game_end_scores_add_up() -> None:
    state, events = finished()
    text = render_game_end(state, None, events, strict=True)
    assert "The game ended because Europe reached 25 power points." in text
    for rank, (player, score) in enumerate(final_scores(state), start=1):
        assert re.search(rf"^  {rank}\.\s+{player}\s+{score}$", text, re.M), player
        block = text.split(f"\n  {player}\n", 1)[1].split("\n\n", 1)[0]
        points = [int(m) for m in re.findall(r"= +(\d+)$", block, re.M)]
        cash = int(re.search(r"^    cash +(\d+)$", block, re.M).group(1))  # type: ignore[union-attr]
        assert sum(points) + cash == score == int(re.search(r"^    total +(\d+)$", block, re.M).group(1))  # type: ignore[union-attr]
    tie_text = render_game_end(*finished(tie=True), strict=True)
    assert "Ben and Anna both scored 14." in tie_text
    assert "In Europe (25 power points) Ben holds 4 against 2, so Ben ranks first." in " ".join(tie_text.split())


# --- text helpers --------------------------------------------------------------------------------------


def test_text_helpers() -> None:
    assert asciify("Bras\u00edlia \u2014 \u201cR\u00edo\u201d \u2026 \u4e2d") == 'Brasilia -- "Rio" ... ?'
    assert wrap("a " * 50, indent=4, first=2).splitlines()[1].startswith("    a")
    assert pair("ORDER", "detail", indent=2, column=10) == "  ORDER     detail"
    assert pair("A VERY LONG ORDER", "x", indent=2, column=10) == "  A VERY LONG ORDER\n            x"
    assert finish("\n\nx" + " y" * 60 + "  \n\n\nz\n\n") .splitlines()[0].endswith("y")
    assert all(len(line) <= 78 for line in finish("w" * 200).splitlines())
    assert problems("caf\u00e9 \nok\n" + "x" * 79) == [
        "line 1 is not plain text in its language: 'caf\u00e9 '", "line 1 has trailing blanks: 'caf\u00e9 '",
        "line 3 is 79 columns: '" + "x" * 79 + "'"]


# --- random positions ----------------------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**16), players=st.integers(2, 6), steps=st.integers(0, 120))
def test_every_text_fits_mail_in_random_positions(seed: int, players: int, steps: int) -> None:
    setup = GameSetup(tuple(Seat(f"p{i}", f"p{i}@example.org") for i in range(players)), seed)
    state, events = new_game(BOARD, setup)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.finished:
            break
        player, action = random_move(state, rng)
        state, events = apply(state, player, action)
    for player in state.seating:
        check_mail(render_report(state, player, events, strict=True))
        prompt = render_prompt(state, player, strict=True)
        if prompt is not None:
            check_mail(prompt)
            view = prompt_view(state, player)
            assert view is not None
            for decision in view.decisions:
                for example in decision.examples:
                    assert apply_message(state, player, "\n".join(example)).error is None, example
    if state.finished:
        check_mail(render_game_end(state, state.seating[0], strict=True))


def test_error_reply_from_a_moderator_submit_result(tmp_path: Path) -> None:
    moderator = Moderator(Database(f"sqlite:///{tmp_path / 'r.db'}"))
    moderator.create_game("g", [("ann", "ann@example.org"), ("bob", "bob@example.org")], [("russia", "ann")], 7)
    result = moderator.submit("g", "ann", "RONDEL investor\nBUY Chna 4")
    assert result.refusal is not None
    text = render_error(result.state, "ann", result, game="g", strict=True)
    assert "line 1: RONDEL investor\n    - Russia placed its marker on Investor." in text
    assert "line 2: BUY Chna 4" in text
    assert "- bob: invest with the investor card" in text
    moderator.db.dispose()
