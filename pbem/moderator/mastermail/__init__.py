"""A game's masters by mail (issue 31): a master runs the game from a mailbox, with no shell on the host.

A game has masters (``pbem.store.masters``), each with a reply token of its
own, mailed to it when it is named (:mod:`.roster`). A mail carrying a
master's token from that master's address is read as master commands, one a
line (:mod:`.lines`); each line is done by the very function the host's CLI
calls (``pbem.moderator.gamemaster``), so the players are told exactly as
the CLI's command would tell them, and the master gets one reply naming each
line and what became of it (:mod:`.inbound`). The host's CLI keeps every
power; the host's ``[moderator] game_master`` is the fallback for alerts of
a game that has no master.
"""
