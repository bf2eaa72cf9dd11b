"""One report, one prompt, one refusal and HELP of each game in each language, byte for byte (issue 30).

Golden files under ``tests/golden/languages/`` (``<kind>-<language>.txt``), made once and read by a person
for sense and tone: any later change of a translation or of the layout in a language shows here as a diff.
Every line is at most 78 characters (counted as characters: a Cyrillic letter is one). Regenerate with
``PBEM_REGEN_GOLDEN=1`` only for a change that is meant, and read the diff.
"""
from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.core.seats import Seat
from pbem.games import kind_named
from pbem.games.kind import SetupChoices
from pbem.games.results import Query
from pbem.languages import SOURCE, Language, speaking

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "languages"
REGENERATE = os.environ.get("PBEM_REGEN_GOLDEN") == "1"
DEADLINE = datetime(2030, 5, 3, 18, 0, tzinfo=UTC)
PLAYERS = (Seat("ann"), Seat("bob"), Seat("cy"))
MOVES = {"imperial2030": 9, "eight-minute-empire": 5}  # a few moves in: a report with something to tell
WRONG = "FROBNICATE 7"


def played(kind_name: str) -> tuple[Any, Any, list[Any]]:
    """The kind, and a seeded game after a few moves of the first legal order, with the last move's events."""
    kind = kind_named(kind_name)
    state, _ = kind.new_game(kind.make_setup(SetupChoices(PLAYERS, seed=3)))
    events: list[Any] = []
    for _ in range(MOVES[kind_name]):
        decider = next(d.player for d in kind.pending(state) if not d.answered)
        outcome = kind.run_message(state, decider, kind.legal_orders(state, decider)[0], {})
        state, events = outcome.state, list(outcome.events)
    return kind, state, events


def texts(kind_name: str, language: Language) -> str:
    kind, state, events = played(kind_name)
    decider = next(d.player for d in kind.pending(state) if not d.answered)
    with speaking(language):
        prompt = kind.prompt(state, decider, game="g", deadline=DEADLINE)
        report = kind.report(state, decider, events, game="g", board=True, with_prompt=prompt is not None)
        refusal = kind.run_message(state, decider, WRONG, {}).refusal
        assert refusal is not None
        error = kind.error(state, decider, refusal, (), game="g")
        help_text = kind.answer_query(state, decider, Query(1, "HELP", "help"), log=None, game="g")
    return "".join(f"##### {label}\n{text}" for label, text in
                   (("prompt", prompt or "(none)\n"), ("report", report), ("refusal", error), ("help", help_text)))


@pytest.mark.parametrize("language", [language for language in Language if language is not SOURCE])
@pytest.mark.parametrize("kind_name", sorted(MOVES))
def test_issue30_a_report_a_prompt_a_refusal_and_help_in_each_language(kind_name: str, language: Language) -> None:
    text = texts(kind_name, language)
    assert all(len(line) <= 78 for line in text.splitlines()), [line for line in text.splitlines() if len(line) > 78]
    path = GOLDEN / f"{kind_name}-{language.value}.txt"
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path.name} is missing: PBEM_REGEN_GOLDEN=1 writes it (then read it)"
    assert text == path.read_text(encoding="utf-8")
