"""pbem: a play-by-email moderator for Imperial 2030."""
__version__ = "0.1.0"
