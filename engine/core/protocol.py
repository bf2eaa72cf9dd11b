"""The contract between the moderator and a game's rules.

The moderator holds a game's setup, states, actions and events as opaque
values of the types a ``Rules`` names, and does everything with them through
these methods: it never reads a field of a game's state.

The contract every implementation keeps:

- Purity. No method does I/O or reads the clock; ``new_game`` and ``apply``
  draw randomness only from the setup's seed (``engine.core.rng``), so
  ``replay`` of a log always gives the same state.
- ``apply`` never changes the state it is given; it returns a new state whose
  ``version`` is one more, with the events in the order they happened, or
  raises ``IllegalAction`` (with the reason and what is legal now) and
  changes nothing.
- ``pending`` lists every decision the game waits for, in the order the
  players would be asked; empty exactly when the game is finished.
- Sealed decisions (see ``engine.core.decisions``): while a sealed round is
  open, ``apply`` accepts a changed answer from the same player; the round is
  resolved only when every player in it has answered, and until then no
  event, public view or other player's view tells what anyone answered, or
  whether they have.
- Hidden information (a deck's order) lives in the state but in no event;
  the views a game offers the moderator (``pbem.games.GameKind.state_json``)
  leave it out. ``state_to_json`` holds everything, for snapshots and the game
  master's own tools.
- JSON round trips are exact: ``state_from_json(state_to_json(s)) == s`` and
  the same for setups and actions; a stored game is its setup and its log.
"""
from __future__ import annotations

from typing import Any, Protocol, TypeVar

from engine.core.decisions import Pending
from engine.core.seats import Seat

SetupT = TypeVar("SetupT")
StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
EventT = TypeVar("EventT")

JsonObject = dict[str, Any]


class State(Protocol):
    """What the moderator may read of any game's state directly (the rest goes through ``Rules``).

    ``version`` is the log position the state stands at, ``finished`` whether
    the game is over, ``seating`` the players' names in seating order.
    """

    @property
    def version(self) -> int: ...

    @property
    def finished(self) -> bool: ...

    @property
    def seating(self) -> tuple[str, ...]: ...


class Rules(Protocol[SetupT, StateT, ActionT, EventT]):
    """One game's rules, as the moderator drives them."""

    def new_game(self, setup: SetupT) -> tuple[StateT, list[EventT]]:
        """The start position of ``setup`` and what setting it up did (cards dealt, money paid out)."""
        ...

    def apply(self, state: StateT, player: str, action: ActionT) -> tuple[StateT, list[EventT]]:
        """``player``'s ``action`` applied to a copy of ``state``; ``IllegalAction`` if the rules refuse it."""
        ...

    def pending(self, state: StateT) -> tuple[Pending, ...]:
        """Every decision the game waits for now (sealed rounds: one per player in the round)."""
        ...

    def version(self, state: StateT) -> int:
        """How many actions led to ``state`` (the log position it stands at)."""
        ...

    def finished(self, state: StateT) -> bool:
        """Whether the game is over."""
        ...

    def setup_of(self, state: StateT) -> SetupT:
        """The setup ``state`` was played from."""
        ...

    def renamed(self, setup: SetupT, old: str, new: str, email: str) -> SetupT:
        """``setup`` with player ``old`` replaced by ``new`` at ``email`` in the same seat (a new player)."""
        ...

    def seats(self, setup: SetupT) -> tuple[Seat, ...]:
        """The players with their addresses, in seating order."""
        ...

    def setup_to_json(self, setup: SetupT) -> JsonObject: ...

    def setup_from_json(self, data: JsonObject) -> SetupT: ...

    def action_to_json(self, action: ActionT) -> JsonObject: ...

    def action_from_json(self, data: JsonObject) -> ActionT: ...

    def state_to_json(self, state: StateT) -> JsonObject:
        """Everything, hidden information included: for snapshots and the game master's tools."""
        ...

    def state_from_json(self, data: JsonObject) -> StateT: ...
