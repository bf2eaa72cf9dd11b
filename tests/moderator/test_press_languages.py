"""Press in the seat's language (issue 30): ``PRESS TO`` takes what a seat holds in the writer's words.

A player who reads Russian knows China as Китай, the red armies as красные:
``PRESS TO Китай`` (or ``китаи``, case and diacritics forgiven as order names
are) reaches China's governor, as ``PRESS TO China`` still does; a refusal
lists who holds what in the writer's language.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.store import Database
from tests.emetable import EmeTable, PressTable
from tests.mailflowkit import Table, config_for

RUSSIAN = {"russia": "Россия", "china": "Китай", "india": "Индия", "brazil": "Бразилия", "usa": "США",
           "europe": "Европа"}
POLISH_COLOURS = {"red": "czerwony", "blue": "niebieski", "green": "zielony", "yellow": "żółty",
                  "purple": "fioletowy"}


@pytest.fixture
def imperial(tmp_path: Path) -> Iterator[EmeTable]:
    """Imperial 2030 for three by mail, ann reading Russian."""
    table = EmeTable(Database(f"sqlite:///{tmp_path / 'g.db'}"), config_for())
    Table.create(table, players=3)
    assert table.send("ann", "LANGUAGE RU") == "query"
    yield table
    table.db.dispose()


@pytest.fixture
def eme(tmp_path: Path) -> Iterator[PressTable]:
    """Eight-Minute Empire for three by mail, ann reading Polish."""
    table = PressTable(Database(f"sqlite:///{tmp_path / 'g.db'}"), config_for())
    table.create()
    assert table.send("ann", "LANGUAGE PL") == "query"
    yield table
    table.db.dispose()


def bobs_nation(table: EmeTable) -> str:
    return table.state().governed_by("bob")[0]


def relayed_to_bob(table: EmeTable, line: str) -> bool:
    before = len(table.outbox())
    table.send("ann", f"{line}\nShall we share Asia?\nEND PRESS")
    return any(row.purpose == "press" and "Shall we share Asia?" in row.body for row in table.to("bob", before))


@pytest.mark.parametrize("spelling", [str.strip, str.lower, str.upper])
def test_issue30_press_to_a_nation_in_the_writers_language_reaches_its_governor(imperial: EmeTable,
                                                                                 spelling: object) -> None:
    name = RUSSIAN[bobs_nation(imperial)]
    assert callable(spelling)
    assert relayed_to_bob(imperial, f"PRESS TO {spelling(name)}")


def test_issue30_press_to_a_nation_forgives_diacritics_as_order_names_do(imperial: EmeTable) -> None:
    name = RUSSIAN[bobs_nation(imperial)].replace("й", "и")  # Китай written Китаи
    assert relayed_to_bob(imperial, f"PRESS TO {name}")


def test_issue30_press_to_a_nation_in_english_still_reaches_its_governor(imperial: EmeTable) -> None:
    assert relayed_to_bob(imperial, f"PRESS TO {bobs_nation(imperial).upper()}")


def test_issue30_a_refused_press_lists_what_each_seat_holds_in_the_writers_language(imperial: EmeTable) -> None:
    before = len(imperial.outbox())
    imperial.send("ann", "PRESS TO zed\nHello\nEND PRESS")
    text = " ".join(imperial.to("ann", before)[-1].body.split())
    assert f"bob ({RUSSIAN[bobs_nation(imperial)]}" in text
    assert bobs_nation(imperial).title() not in text


def test_issue30_press_to_a_colour_in_the_writers_language_reaches_its_seat(eme: PressTable) -> None:
    colour = POLISH_COLOURS[eme.colour("bob")]
    assert relayed_to_bob(eme, f"PRESS TO {colour}")
    assert relayed_to_bob(eme, f"PRESS TO {colour.replace('ż', 'z').replace('ó', 'o').upper()}")
    assert relayed_to_bob(eme, f"PRESS TO {eme.colour('bob')}")


def test_issue30_the_colours_listed_in_a_refusal_are_in_the_writers_language(eme: PressTable) -> None:
    before = len(eme.outbox())
    eme.send("ann", "PRESS TO zed\nHello\nEND PRESS")
    text = " ".join(eme.to("ann", before)[-1].body.split())
    assert f"bob ({POLISH_COLOURS[eme.colour('bob')]})" in text



def test_issue30_relayed_press_is_headed_in_the_readers_language(imperial: EmeTable) -> None:
    before = len(imperial.outbox())
    imperial.send("bob", f"PRESS TO {imperial.state().governed_by('ann')[0]}\nHello\nEND PRESS")
    (relayed,) = [row for row in imperial.to("ann", before) if row.purpose == "press"]
    assert relayed.body.startswith("Press: письмо от bob\n") and "Hello" in relayed.body
