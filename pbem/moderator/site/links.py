"""Where a game's pages live: one folder per game under ``games/``, named so that any web server serves it.

A game's name is the game master's choice; its folder's name must be safe in
a path and in a URL. A name of letters, digits, ``.``, ``-`` and ``_`` is used as
it stands (the common case, and the address a player can guess); any other
is cleaned and given a short digest of the whole name, so two names that
clean the same stay apart.
"""
from __future__ import annotations

import hashlib
import re

GAMES = "games"  # the folder of the games' folders
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def slug(name: str) -> str:
    """The name of a game's folder (see the module docstring)."""
    if _SAFE.fullmatch(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-_")[:40] or "game"
    return f"{cleaned}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"


def game_path(name: str) -> str:
    """The game's folder, relative to the site's: ``games/friday``."""
    return f"{GAMES}/{slug(name)}"


def game_url(base: str, name: str) -> str:
    """The address of a game's page on a site served at ``base`` (``[site] url``)."""
    return f"{base.rstrip('/')}/{game_path(name)}/"
