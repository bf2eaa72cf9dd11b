"""Imperial 2030 rules engine: pure rules, no I/O beyond loading the board data.

The moderator reaches it through ``engine.imperial2030.rules.IMPERIAL2030``
(the ``engine.core.Rules`` protocol); the game's own package in the moderator
(``pbem.games.imperial2030``) also uses the modules here directly.
"""
