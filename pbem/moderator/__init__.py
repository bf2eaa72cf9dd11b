"""The moderator's core: games, orders, the mail a move causes, deadlines and the game master's tools.

It knows no transport: mail reaches it as bytes and leaves it as outbox rows
(``pbem.daemon`` receives and sends), and no game: each game's kind
(``pbem.games``) reads the orders and writes the words.

* :mod:`pbem.moderator.games` — :class:`Moderator`: creates games, takes orders, answers "where do we stand"
* :mod:`pbem.moderator.apply` — :func:`submit_in`: one message of orders inside the caller's transaction
  (:class:`SubmitResult`)
* :mod:`pbem.moderator.notify` — the mail a move causes, written after the move's commit: every seat's report
  and prompt, observers, pictures
* :mod:`pbem.moderator.inbound` — one inbound mail handled in one transaction, and its readers (binding,
  press, preferences, vacation, history)
* :mod:`pbem.moderator.deadlines` — every pending decision's deadline and reminders (pure computation)
* :mod:`pbem.moderator.tick` — acts on what is due: reminders, passive defaults, the stand-in, digests
* :mod:`pbem.moderator.gamemaster` — the game master's commands (force, undo, replace, pause, resend, ...)
"""
from __future__ import annotations

from pbem.games import NewGame
from pbem.games.results import AppliedLine, Query, Refusal, Resumed, Waiting
from pbem.moderator.apply import SubmitResult, submit_in
from pbem.moderator.games import EMAIL, GAME_NAME, PLAYER_NAME, SEED_LIMIT, Moderator

__all__ = ["EMAIL", "GAME_NAME", "PLAYER_NAME", "SEED_LIMIT", "AppliedLine", "Moderator", "NewGame", "Query",
           "Refusal", "Resumed", "SubmitResult", "Waiting", "submit_in"]
