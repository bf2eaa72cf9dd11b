"""Eight-Minute Empire's rules engine: pure rules, no I/O beyond loading the map data.

The moderator reaches it through ``rules.EIGHT_MINUTE_EMPIRE`` (the
``engine.core.Rules`` protocol). Rule ids (``R8-BID-2``) refer to the
project's rules reference; the docstrings cite them where a rule is applied.
"""
