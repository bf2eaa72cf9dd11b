"""The one interface between the moderator and a game: everything the moderator needs of a kind.

The moderator core (store, mail flow, deadlines, game-master commands, CLI,
demo) holds a game's setup, states, actions, events and decisions as opaque
values and does everything with them through a ``GameKind``, found in the
registry (``pbem.games.kind_of``) by the kind name stored with each game. It
never reaches past the kind into the game's engine (no ``kind.rules``: the
layering test checks it). A kind imports no part of the moderator core.

What a game is made of, and what its author writes (docs/new-game.md):

- ``engine.core.Rules`` of the game's own types (``S``, ``A``, ``E``): the
  pure engine, with its contract (purity, sealed decisions, hidden
  information, exact JSON round trips).
- A kind, ``GameKind[S, A, E]``: a ``Rules`` itself (``BaseKind`` passes the
  methods on to the engine), its metadata as one ``KindInfo``, the order
  language and the views. Subclass ``pbem.games.basekind.BaseKind``: it
  gives every member that has a sensible default one, and ``REQUIRED``
  names the few a game must write.
- A ``Bot`` that plays it by mail.

The contract, beyond ``engine.core.Rules``:

- Every text a method returns is mail text: pure ASCII, no line wider than 78
  columns (``pbem.render``).
- Views are per reader. ``report``, ``prompt``, ``error``, ``welcome``,
  ``game_end``, ``answer_query`` and ``state_json`` with a ``viewer`` show
  what that player may see: no hidden information, and no other player's
  sealed answer — nor whether it was given — before the sealed round is
  complete. ``narrate`` tells events every player may read.
- A game with sealed decisions says so three times: ``tells`` is False for
  a seat that another's sealed answer tells nothing (no report is mailed),
  ``shown_move`` stays where the round opened (no move number counts the
  answers), and ``is_sealed_answer`` marks the answers (they restart no
  clock). The defaults are those of a game with nothing sealed.
- ``run_message`` never raises for a player's mistake: a refused line is a
  ``Refusal`` naming the line, the reason and what is legal now, and the
  lines before it stand.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, Generic, Protocol

from typing_extensions import TypeVar

from engine.core.decisions import Pending
from engine.core.log import LogEntry
from engine.core.protocol import Rules
from engine.core.seats import Seat
from pbem.errors import BadSetup
from pbem.games.results import AppliedLine, MessageLine, MessageOutcome, Query, Refusal, StoredLines
from pbem.render.scene import Scene

# A game's state, action and event types: ``GameKind[GameState, Action, Event]`` is Imperial's, and mypy
# refuses its state where Eight-Minute Empire's is asked. The core holds games as opaque values and writes
# plain ``GameKind``: the defaults make that ``GameKind[Any, Any, Any]``.
S = TypeVar("S", default=Any)
A = TypeVar("A", default=Any)
E = TypeVar("E", default=Any)


@dataclass(frozen=True)
class SetupChoices:
    """What the game master chose for a new game, before the kind checks it.

    ``options`` are the kind's own choices by name (Imperial: ``deal``,
    ``start_player``; Eight-Minute Empire: ``age_order``), each given as the
    ``pbem game new`` flag of that name (``option_flag``); a kind refuses
    options it does not know, naming them and its own as those flags.
    """

    players: tuple[Seat, ...]
    seed: int
    variants: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)


def option_flag(name: str) -> str:
    """The flag the game master typed for an option: ``start_player`` is ``--start-player``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class KindInfo:
    """What a game is, as one value: everything the moderator reads of a kind without a state.

    The CLI lists kinds and checks a new game's seats and variants against it;
    a new game takes ``deadline_hours`` (hours per decision kind, under the
    configuration's ``[deadlines]``, which win); what a game master is shown
    of a game's deadlines is asked of ``decisions`` (a game's stored hours may
    name other kinds' decisions too). Being data, it costs a game no code.
    """

    name: str  # stored with every game of this kind: "imperial2030"
    title: str  # "Imperial 2030", in mails and help
    min_players: int
    max_players: int
    variants: tuple[str, ...] = ()  # the rule variants a game master may choose
    options: tuple[str, ...] = ()  # the kind's own setup options by name (``SetupChoices.options``)
    decisions: tuple[str, ...] = ()  # every ``Pending.kind`` the game asks for
    deadline_hours: Mapping[str, float] = field(default_factory=dict)  # per decision kind, for a new game
    holding_verb: str = "holds"  # how a seat holds things in this game: "governs"
    # decisions asked in a brief mail (the question and the news, no report or board): those taken within
    # another seat's turn and answered from the question alone (Imperial 2030: a battle, a canal passage)
    brief: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "deadline_hours", MappingProxyType(dict(self.deadline_hours)))

    def refuse_unknown(self, choices: SetupChoices) -> None:
        """``BadSetup`` for options this kind does not know, naming them and its own as flags."""
        unknown = sorted(set(choices.options) - set(self.options))
        if unknown:
            raise BadSetup(f"{self.title} has no option {', '.join(map(option_flag, unknown))}; its options: "
                           f"{', '.join(map(option_flag, self.options))}")


@dataclass(frozen=True)
class NewGame(Generic[S, E]):
    """A game just created: its start position and what setting it up did (typed by the game's state and
    event; the core, which knows no game, holds a ``NewGame`` of ``Any``)."""

    name: str
    state: S
    events: tuple[E, ...]
    narration: tuple[str, ...]
    pending: tuple[Pending, ...] = ()  # the decisions the game waits for first


@dataclass(frozen=True)
class Race:
    """How near the game is to its end, for a progress line: who leads, with how much of what."""

    round: int
    leader: str
    score: int
    goal: int  # the score that ends the game (a bar fills up to it)
    unit: str  # what the score counts: "power"
    filled: float | None = None  # how much of the game is played, 0 to 1, when the score does not tell it


class Bot(Protocol):
    """A player program for this game: reads the moderator's mails as text, answers with order text.

    The mail loop around it (``pbem.bots.BotPlayer``) is the same for every
    game and sorts the mail by its headers; the game's bot only reads its own
    words: whether a text carries its report, and what to answer.
    ``strategies`` name its ways of choosing (``random`` at least).
    """

    @property
    def strategies(self) -> tuple[str, ...]:
        """Ways of choosing, ``random`` first."""
        ...

    def is_report(self, text: str) -> bool:
        """Whether a mail's text carries the game's report (what the bot weighs when it decides). What a mail
        is, which move it is about and whether it asks are its headers, read by the loop for every game."""
        ...

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        """Orders answering a prompt; None when the bot cannot (the deadline decides then)."""
        ...

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        """Other orders after a refusal, avoiding those refused before; None to give up."""
        ...


class GameKind(Rules[Any, S, A, E], Protocol[S, A, E]):
    """One game the moderator can run, generic over its state ``S``, action ``A`` and event ``E``.

    It is the game's ``Rules`` as the core sees them (the core asks the kind,
    never its engine) and everything else the moderator needs: metadata
    (``info``), setup, the order language, words and views, and a bot. The
    module docstring holds the contract; ``BaseKind`` the defaults.
    """

    @property
    def info(self) -> KindInfo:
        """What the game is, as data: its name, title, seats, variants, options, decisions, hours."""
        ...

    # --- setup and orders ----------------------------------------------------------------

    def make_setup(self, choices: SetupChoices) -> Any:
        """A setup for ``rules.new_game``; ``BadSetup`` naming what is wrong and what is allowed."""
        ...

    def created(self, name: str, state: S, events: Sequence[E]) -> NewGame[S, E]:
        """The new game as the CLI and the mail flow tell it (a kind may add what its setup dealt)."""
        ...

    def run_message(self, state: S, player: str, text: str, waiting: StoredLines) -> MessageOutcome:
        """``player``'s message read against ``state``: what stands, what was refused, what waits."""
        ...

    def still_waiting(self, state: S, player: str) -> bool:
        """Whether ``player``'s held-back lines still wait in ``state`` (an undo keeps only those)."""
        ...

    def is_side_action(self, action: A) -> bool:
        """Whether an action may be taken at any time and answers no decision (a donation)."""
        ...

    def is_sealed_answer(self, action: A) -> bool:
        """Whether an action answers a sealed decision (a bid): it restarts no clock of the round it is in."""
        ...

    def queries_only(self, text: str) -> bool:
        """Whether a message holds report requests and nothing else (it is answered even when late)."""
        ...

    def order_lines(self, text: str) -> tuple[MessageLine, ...]:
        """The lines of a message that are read as orders (quotes, signatures, greetings left out)."""
        ...

    def format_action(self, state: S, action: A) -> str:
        """An action as order text, as a player would write it."""
        ...

    def default_order(self, state: S, decision: Pending) -> str | None:
        """The passive default of a pending decision as order text; None where the game master decides."""
        ...

    # --- words and views -----------------------------------------------------------------

    def tells(self, state: S, events: Sequence[E], player: str) -> bool:
        """Whether ``events`` tell ``player`` anything (no report is mailed to a seat they tell nothing:
        another player's sealed answer must not even be seen to have happened)."""
        ...

    def narrate(self, state: S, events: Iterable[E], viewer: str | None = None) -> list[str]:
        """Events as sentences ``viewer`` may read (None: what every player may read)."""
        ...

    def decision_words(self, state: S, decision: Pending) -> str:
        """What a pending decision asks, in a few words: 'choose a rondel space for Russia'."""
        ...

    def subject_name(self, subject: str | None) -> str | None:
        """The name of what a decision is about (``Pending.subject``), as players read it."""
        ...

    def shown_move(self, state: S) -> int:
        """The move number players are shown: in subjects and Message-IDs, and what their replies bind to.

        Usually the log position (``state.version``). A kind with a sealed
        round in progress shows the position at which the round opened, so
        that no count of moves tells a player whether another has answered.
        """
        ...

    def status_words(self, state: S) -> str:
        """Where the game stands, for a mail subject: 'round 2, Russia to play', 'game over'."""
        ...

    def turn_line(self, state: S) -> str:
        """Where the game stands, in a sentence: 'Round 2: Russia's turn (ann), choosing a rondel space.'"""
        ...

    def holdings(self, state: S, player: str) -> tuple[str, ...]:
        """What ``player``'s seat holds, by name (Imperial: the nations they govern; Eight-Minute Empire: the
        colour of its armies), named in the language being written (``pbem.languages.spoken``): English for
        the host's commands, the seat's words in its mail. Press (``PRESS TO China``) asks it in the writer's
        language and in English, and takes either (issue 30)."""
        ...

    def holding_words(self, state: S, player: str) -> str:
        """The same as a phrase for a notice: 'the government of Russia, China'; "" when nothing."""
        ...

    def report(self, state: S, player: str, events: Iterable[E], *, game: str, open_cash: bool = False,
               board: bool = True, with_prompt: bool = False) -> str:
        """What ``events`` did, as ``player`` may read it, with where the game stands; ``board``: with the board.

        ``with_prompt``: the mail carries the player's prompt (``prompt``) above
        the report, so the report leaves out what the prompt shows already (a
        mail that asks a decision opens with the question, issue 29, and tells
        nothing twice): Eight-Minute Empire's row of cards, for one.
        """
        ...

    def prompt(self, state: S, player: str, *, game: str, deadline: datetime | str | None = None) -> str | None:
        """What ``player`` must decide now with every legal option; None when nothing is asked of them."""
        ...

    def welcome(self, state: S, player: str, *, game: str, reply_to: str | None = None,
                open_cash: bool = False, mail_note: str = "") -> str: ...

    def error(self, state: S, player: str, refusal: Refusal, applied: Sequence[AppliedLine] = (), *,
              game: str) -> str:
        """The reply to a refused message: the lines that stood (``applied``), the refused line, what is legal."""
        ...

    def game_end(self, state: S, player: str | None, events: Iterable[E], *, game: str) -> str: ...

    def board_text(self, state: S, *, game: str) -> str:
        """The whole board as text (``BOARD``, ``pbem board``)."""
        ...

    def board_key(self, state: S) -> str:
        """What the board shows, as text that changes exactly when a piece on it does (no move counter, no
        title): a seat that has seen this board is not mailed it again (``pbem.moderator.notify.turnmail``)."""
        ...

    def picture(self, state: S, *, game: str) -> Scene:
        """The whole board as a scene to draw (``pbem board --png``; a picture beside a mail's text).

        A kind tells what stands where (places, links, pieces, colours, from
        its map data and its ASCII art's slots); ``pbem.render.picture`` draws
        it, once for every game. Like ``board_text``, it shows what every
        player may see.
        """
        ...

    def answer_query(self, state: S, player: str, query: Query, *, log: Sequence[LogEntry[A]] | None, game: str,
                     open_cash: bool = False, deadline: datetime | str | None = None) -> str: ...

    def state_json(self, name: str, state: S, viewer: str | None = None) -> dict[str, Any]:
        """The state as JSON (docs/state-json.md); with ``viewer``, only what that player may see."""
        ...

    def race(self, state: S) -> Race:
        """Who leads and how near the end the game is (the demo's progress line)."""
        ...

    def final_scores(self, state: S) -> tuple[tuple[str, int], ...]:
        """(player, score), best first, once the game is over."""
        ...

    def end_lines(self, state: S) -> list[str]:
        """A sentence or two on how the game ended: 'Russia reached 25 power points.'"""
        ...

    def summary_lines(self, name: str, state: S) -> list[str]:
        """A short summary of the position for ``pbem state``."""
        ...

    def pending_lines(self, state: S, *, options: bool = True) -> list[str]:
        """Who must decide what next, for the CLI; ``options`` lists every legal order with it."""
        ...

    def legal_orders(self, state: S, player: str) -> list[str]:
        """Every order ``player`` may give now, as text to copy."""
        ...

    def new_game_lines(self, created: NewGame[S, E]) -> list[str]:
        """What ``pbem game new`` prints: seats, what was dealt, who decides first."""
        ...

    @property
    def bot(self) -> Bot:
        """The game's bot, for ``pbem bot`` and the demo."""
        ...


def match_player(text: str, names: Sequence[str]) -> str | None:
    """The player ``text`` names: exactly, else ignoring case and surrounding blanks; None if none (or two)."""
    if text in names:
        return text
    matches = [name for name in names if name.casefold() == text.strip().casefold()]
    return matches[0] if len(matches) == 1 else None


def resolve_player(text: str, names: Sequence[str], where: str, error: type[Exception]) -> str:
    """A player name as typed (``match_player``); ``error`` naming the players otherwise."""
    found = match_player(text, names)
    if found is None:
        raise error(f"{where}: {text!r} is not a player; players: {', '.join(names)}")
    return found
