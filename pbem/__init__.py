"""pbem: a play-by-email moderator for board games, one moderator serving every game kind (pbem.games)."""
__version__ = "0.1.0"
