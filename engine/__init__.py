"""Pure rules engines, one package per game, and what they share (``engine.core``).

No module under ``engine`` does I/O beyond loading its own map data, and none
imports the moderator (``pbem``). ``engine.core`` imports no game.
"""
