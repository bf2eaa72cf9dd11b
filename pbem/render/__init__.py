"""Mail text every game shares: the Jinja2 environment, the ASCII/78-column finish, art files.

A game's own views and templates live with the game (``pbem.games.<kind>``,
``templates/<kind>/``); what they share is here: ``render`` lays a template
out and finishes it for mail (pure ASCII, no line wider than 78 columns, or
``RenderError`` under ``strict=True``), ``pbem.render.text`` holds the text
helpers, and ``pbem.render.art`` parses the ASCII art files a board is drawn on.
"""
from __future__ import annotations

from pbem.render.art import ArtError
from pbem.render.env import RenderError, render
from pbem.render.text import MAX_WIDTH, asciify, problems

__all__ = ["ArtError", "MAX_WIDTH", "RenderError", "asciify", "problems", "render"]
