"""A translated line read back into English through the catalogue (``pbem.games.untranslate``)."""
from __future__ import annotations

from pbem.games import untranslate
from pbem.languages import Language, speaking
from pbem.render.env import environment


def said(language: Language, msgid: str, **values: object) -> str:
    with speaking(language):
        return environment(language).from_string("{{ _(msgid, **values) }}").render(msgid=msgid, values=values)


def test_issue30_a_heading_reads_back_whatever_its_case() -> None:
    """A decision's title is printed upper case (``d.title|upper``): read caseless, it is its message."""
    heading = said(Language.RU, "decide whether %(nation)s fights %(mover)s in %(where)s",
                   nation="Европа", mover="Индия", where="Париж").upper()
    read = untranslate.message(heading, Language.RU, caseless=True)
    assert read is not None and read.upper() == "DECIDE WHETHER EUROPE FIGHTS INDIA IN PARIS"


def test_issue30_a_sentence_reads_back_with_its_values() -> None:
    sentence = said(Language.PL, "Your cash: %(cash)s.", cash=7)
    assert untranslate.message(sentence, Language.PL) == "Your cash: 7."
