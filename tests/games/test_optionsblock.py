"""The options block every game prints (templates/core/options.j2), read back by one reader for every game."""
from __future__ import annotations

from engine.core.seats import Seat
from pbem.games.optionsblock import Option, blocks, heading, options_in, split_option
from pbem.render.env import environment
from tests.guesskind import GuessKind, GuessSetup, GuessState

PROMPT = """\
MANEUVER
--------
Your options:
  Fleets:
    FLEET Baltic Sea TO North Sea   costs nothing; the fleet
      may fight there
    DONE                            ends the maneuver
  Combine up to 3 units in one reply.

For example, reply with:
    DONE
"""


def test_a_block_reads_orders_details_groups_and_notes() -> None:
    (block,) = blocks(PROMPT)
    assert block.options == (
        Option("FLEET Baltic Sea TO North Sea", "costs nothing; the fleet may fight there", "Fleets"),
        Option("DONE", "ends the maneuver", "Fleets"),
    )
    assert block.notes == ("Combine up to 3 units in one reply.",)
    assert PROMPT.splitlines()[block.start] == "Your options:" and not PROMPT.splitlines()[block.end].strip()


def test_the_examples_after_a_block_are_not_options() -> None:
    assert options_in(PROMPT) == ("FLEET Baltic Sea TO North Sea", "DONE")


def test_a_line_ending_in_a_colon_introduces_the_lines_after_it() -> None:
    text = "Your options:\n    BID n, for n from 0 to 4:\n    BID 0\n    BID 1\n"
    assert options_in(text) == ("BID 0", "BID 1")


def test_an_order_and_its_details_are_split_at_a_gap_of_two_spaces() -> None:
    assert split_option("    ARMY Moscow TO Paris HOSTILE        or FRIENDLY; by sea") == (
        "ARMY Moscow TO Paris HOSTILE", "or FRIENDLY; by sea")
    assert split_option("    GUESS 5") == ("GUESS 5", "")


def test_the_block_the_template_prints_is_the_block_the_reader_reads() -> None:
    orders = ("GUESS 1", "GUESS 2", "MOVE 12-13, 12-9; CITY 4")
    printed = environment().from_string('{% import "core/options.j2" as o %}{{ o.block(orders) }}').render(orders=orders)
    assert printed.splitlines()[0] == heading() == "Your options:"
    assert options_in(printed) == orders


class _NoReadyOrders(GuessKind):
    """Guess the Number as a game that lists no orders to copy (``BaseKind.legal_orders``' default)."""

    def legal_orders(self, state: GuessState, player: str) -> list[str]:
        return []


def test_a_game_without_ready_orders_is_still_asked_its_decision() -> None:
    """The plain prompt asks a decision even when the game lists no orders to copy: its words and HELP say
    what to write, and no empty options block is printed."""
    state = GuessKind().rules.new_game(GuessSetup((Seat("ann", "a@x.org"), Seat("bob", "b@x.org")), 1))[0]
    assert options_in(GuessKind().prompt(state, "ann", game="g1") or "")
    bare = _NoReadyOrders().prompt(state, "ann", game="g1") or ""
    assert bare and not blocks(bare) and "HELP lists the orders" in bare
