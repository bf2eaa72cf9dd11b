"""The one exception hierarchy of the moderator layer (store, config, moderator, CLI).

Engine refusals stay engine exceptions (``engine.imperial2030.errors``); an order that is
refused is not an exception here but part of a ``SubmitResult``. What is raised
here are the game master's mistakes and the storage's troubles, each with a
message fit to print as it is.
"""
from __future__ import annotations


class PbemError(Exception):
    """Base of every error of the moderator layer; ``str(error)`` is the message to show."""


class ConfigError(PbemError):
    """The configuration file is missing, unreadable or wrong."""


class StoreError(PbemError):
    """The database cannot be reached or holds data that does not describe a game."""


class SchemaTooNew(StoreError):
    """The database (or a backup) was migrated by a newer pbem: this one must not write into it or migrate it.

    Raised before anything is written; the message names both pbem versions
    and what to do (upgrade pbem, or restore the backup taken before the upgrade).
    """


class ConcurrentUpdate(StoreError):
    """Another writer appended to the game's log first; nothing was written."""


class GameNotFound(PbemError):
    """No game of that name."""


class GameExists(PbemError):
    """A game of that name exists already."""


class BadSetup(PbemError):
    """A new game cannot be set up as asked (players, deal, variants, name)."""


class UnknownPlayer(PbemError):
    """The name is not a player of the game."""
