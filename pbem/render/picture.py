"""A board picture as PNG bytes: the one place that loads Pillow, and only when a picture is drawn.

A game describes its board as a ``pbem.render.scene.Scene`` (places, links,
pieces; no pixels) and ``render_png`` draws it with ``pbem.render.png``.
That module, and those it draws with (``links``, ``measure``, ``places``,
``encode``), import Pillow as they load, which costs a process some 20 ms
and its memory; text-only commands and mails with no picture never draw, so
they never pay it. Hence the import of ``pbem.render.png`` inside
``render_png``: Pillow's lazy load, the project's one import inside a
function. Nothing of the drawing imports this module back.
"""
from __future__ import annotations

from pbem.render.scene import Scene


def render_png(scene: Scene) -> bytes:
    """The scene as PNG bytes (Pillow; a small palette image, fit to inline in a mail)."""
    from pbem.render.png import draw  # Pillow's lazy load (see above): the only import inside a function

    problems = scene.check()
    if problems:
        raise ValueError("; ".join(problems))
    return draw(scene)
