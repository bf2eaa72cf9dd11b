"""Every seat in its own language (issue 30): LANGUAGE by mail, a game's and a seat's language at creation.

A seat's mail is written in its language (``LANGUAGE RU``, the command's own
word in each language accepted: ``ЯЗЫК``, ``JĘZYK``, ``IDIOMA``, ``LINGUA``),
else the game's; the other seats' mail is untouched. Mail in another language
keeps its letters, within 78 columns counted in characters, sent as UTF-8.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from pbem.languages import Language, speaking
from pbem.mail.outbound import build_message
from pbem.moderator import gamemaster
from pbem.moderator.gamemaster import MailContext
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.render.text import due_stamp
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from tests.emetable import EmeTable
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, config_for, mail_of

EMAIL = dict(PLAYERS)
CYRILLIC = set("абвгдежзийклмнопрстуфхцчшщъыьэюяё")


def russian(text: str) -> bool:
    return len(CYRILLIC & set(text.lower())) >= 10


def to(table: EmeTable, player: str, since: int) -> list[OutboxRow]:
    return [row for row in table.outbox()[since:] if row.recipient == EMAIL[player]]


@pytest.mark.parametrize("line", ["LANGUAGE RU", "language russian", "ЯЗЫК русский", "Język ru", "IDIOMA ruso",
                                  "lingua RUSSO"])
def test_issue30_language_by_mail_answers_in_the_language_chosen_in_any_of_its_words(table: EmeTable,
                                                                                      line: str) -> None:
    seen = len(table.outbox())
    table.send("ann", line)
    (reply,) = to(table, "ann", seen)
    assert russian(reply.body), reply.body[:600]
    assert all(len(text) <= 78 for text in reply.body.splitlines())


def test_issue30_a_seats_language_stays_for_its_later_mail_and_the_others_stay_english(table: EmeTable) -> None:
    table.send("bob", "LANGUAGE RU")
    seen = len(table.outbox())
    for player in ("ann", "bob", "cy"):
        table.send(player, "BID 1")
    assert all(russian(row.body) for row in to(table, "bob", seen))
    others = to(table, "ann", seen) + to(table, "cy", seen)
    assert others and not any(russian(row.body) for row in others)


def test_issue30_an_unknown_language_refuses_the_mail_naming_those_there_are(table: EmeTable) -> None:
    seen = len(table.outbox())
    table.send("ann", "LANGUAGE klingon")
    (reply,) = to(table, "ann", seen)
    flat = " ".join(reply.body.split())
    assert "line 1: LANGUAGE klingon: write LANGUAGE and one of EN (English), RU (" in flat
    assert not russian(reply.body)


@pytest.fixture
def polish_game(tmp_path: Path) -> Iterator[EmeTable]:
    """A game whose language is Spanish, ann's own Polish."""
    table = EmeTable(Database(f"sqlite:///{tmp_path / 'game.db'}"), config_for())
    setup = table.moderator.make_setup(table.name, PLAYERS[:3], [], 1, kind="eight-minute-empire")
    create_game_with_mail(table.moderator, table.config, table.name, setup, NOW, kind="eight-minute-empire",
                          language=Language.ES, languages={"ann": Language.PL})
    yield table
    table.db.dispose()


def test_issue30_the_welcome_comes_in_the_seats_language_else_the_games(polish_game: EmeTable) -> None:
    welcome = {row.recipient: row for row in polish_game.outbox() if row.purpose == "welcome"}
    assert "Twoje" in welcome[EMAIL["ann"]].body or "twoje" in welcome[EMAIL["ann"]].body
    assert "LANGUAGE EN" in " ".join(welcome[EMAIL["bob"]].body.split())
    assert "correo" in welcome[EMAIL["bob"]].body


def test_issue30_mail_in_another_language_is_sent_as_utf8_with_its_letters_and_its_subject_encoded(
        table: EmeTable) -> None:
    table.send("bob", "LANGUAGE RU")
    seen = len(table.outbox())
    for player in ("ann", "bob", "cy"):
        table.send(player, "BID 1")
    row = next(row for row in to(table, "bob", seen) if not row.subject.isascii())
    raw = build_message(mail_of(table.db, row)).as_bytes()
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert head.isascii() and b"=?utf-8?" in head.lower()  # RFC 2047
    parsed = message_from_bytes(raw, policy=policy.default)
    assert str(parsed["Subject"]) == row.subject
    text = parsed.get_body(("plain",))
    assert text is not None and russian(text.get_content())


@pytest.mark.parametrize(("language", "weekday"), [(Language.EN, "Tuesday"), (Language.RU, "вторник"),
                                                   (Language.PL, "wtorek"), (Language.ES, "martes"),
                                                   (Language.IT, "martedì")])
def test_issue30_a_deadline_names_its_weekday_in_the_readers_language(language: Language, weekday: str) -> None:
    with speaking(language):
        assert due_stamp(datetime(2026, 12, 8, 4, 37, tzinfo=UTC)) == f"{weekday} 2026-12-08 04:37 UTC"


@pytest.mark.parametrize("line", ["HELP LANGUAGE", "HELP ЯЗЫК", "help idioma"])
def test_issue30_help_on_language_lists_the_languages_in_the_readers_words(table: EmeTable, line: str) -> None:
    table.send("bob", "LANGUAGE PL")
    seen = len(table.outbox())
    table.send("bob", line)
    (reply,) = to(table, "bob", seen)
    assert "HELP: LANGUAGE" in reply.body and "RU (Русский)" in reply.body and "PL (Polski)" in reply.body


def test_issue30_the_game_masters_note_on_a_forced_move_reads_in_each_seats_language(table: EmeTable) -> None:
    """The note is recorded with the move, before any mail is written: it keeps its words, and each seat's mail
    says them in that seat's language."""
    table.send("bob", "LANGUAGE RU\nBID 1")
    table.send("ann", "BID 1")
    seen = len(table.outbox())
    gamemaster.force(table.db, table.name, "cy", "BID 2", mail=MailContext.make(moderator_address=MODERATOR))
    to_ann, to_bob = to(table, "ann", seen), to(table, "bob", seen)  # the last bid: every seat is told
    assert any("The game master gave these orders for cy" in " ".join(row.body.split()) for row in to_ann)
    assert to_bob and all("The game master gave" not in " ".join(row.body.split()) for row in to_bob)
    assert any(russian(row.body) and "BID 2" in row.body for row in to_bob)


def test_issue30_a_new_language_asks_the_seats_open_question_again_in_it(table: EmeTable) -> None:
    """The options to copy were in the old language: the answer to LANGUAGE asks again, question first."""
    seen = len(table.outbox())
    table.send("ann", "LANGUAGE PL")
    (reply,) = to(table, "ann", seen)
    assert reply.headers.get("decision") == "bid"
    lines = reply.body.split("\n")
    assert any("OFERTA" in line for line in lines[:15]) and "Polski" in reply.body  # the bid, in Polish words


@pytest.mark.parametrize(("language", "note"), [("RU", "(Это видно на картинке.)"), ("PL", "(Widać to na obrazie.)"),
                                                ("ES", "(Se ve en la imagen.)"), ("IT", "(Si vede nell&#x27;immagine.)")])
def test_issue30_the_html_part_says_in_the_seats_language_where_the_picture_stands_for_the_drawing(
        table: EmeTable, language: str, note: str) -> None:
    """The HTML part leaves the text's drawing of the board out for the picture and says so: in the seat's
    words (it was English in every language), and English for the others."""
    table.send("bob", f"LANGUAGE {language}")
    seen = len(table.outbox())
    for player in ("ann", "bob", "cy"):
        table.send(player, "BID 1")

    def html(player: str) -> str:
        row = next(row for row in to(table, player, seen) if row.picture_id is not None)
        part = message_from_bytes(build_message(mail_of(table.db, row)).as_bytes(),
                                  policy=policy.default).get_body(("html",))
        assert part is not None
        return str(part.get_content())

    assert note in html("bob") and "(The picture shows this.)" not in html("bob")
    assert "(The picture shows this.)" in html("ann")
