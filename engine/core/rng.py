"""Seeded randomness: every draw of a game comes from its stored seed, so replay deals the same cards.

A game never uses the global ``random`` state; it asks ``seeded`` for a
generator of its own, and the same seed (and purpose) always gives the same
sequence, on every machine and Python version that keeps ``random.Random``'s
documented reproducibility.
"""
from __future__ import annotations

import random


def seeded(seed: int, purpose: str = "") -> random.Random:
    """A generator for one purpose of a game (``purpose`` separates independent draws; "" is the seed itself)."""
    return random.Random(seed if not purpose else f"{seed}:{purpose}")
