"""A public page per game: a static site of every game's board, standings, turn and history.

* :mod:`pbem.moderator.site.links` — where a game's pages live in the folder and at the site's address
* :mod:`pbem.moderator.site.public` — what a game's pages show, from the store: only what every player may see
* :mod:`pbem.moderator.site.write` — the pages and pictures written, each file atomically; the refresh after
  a move

This package's ``__init__`` imports nothing: the mail's modules import the links alone, and the writer
imports the mail's observers (their reader, ``VIEWER``), so the two halves stay apart.
"""
