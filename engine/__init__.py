"""Imperial 2030 rules engine: pure rules, no I/O beyond loading the board data.

The public surface is re-exported here so that callers never reach into
submodules: ``new_game``, ``apply``, ``pending``, ``replay`` and the types they use.
"""
