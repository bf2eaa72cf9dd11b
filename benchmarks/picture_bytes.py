"""Board picture size benchmark: how many bytes a board's PNG is, per game kind, and what drawing it costs.

Why: every report mail carries the board's PNG (base64, a third larger), so
its bytes are paid once per seat per move, in the outbox, on the wire and in
every reader's mailbox. This prints, per kind, over several seeded random
games' boards (those of ``benchmarks/picture.py``'s cache-hostile pattern:
a board every ``--every`` moves, the games taken in turn), the median, least
and most bytes of a picture and the median draw+encode time:

``picture bytes, imperial2030: median X, min Y, max Z (N pictures); draw+encode median T ms``

Each picture is drawn from nothing (the remembered pictures, places, panels
and bands emptied before each), so the time is that of a board that changed
and the bytes are those of an encoder that saw no earlier band; CPU time of
this process. ``--write DIR`` also writes each kind's median-sized picture
there, to look at.

Usage (``PYTHONPATH`` picks the code measured, as for ``benchmarks/picture.py``):

    python benchmarks/picture_bytes.py [--games 6] [--moves 400] [--every 8] [--write /tmp]
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from picture import eme_states, imperial_states  # noqa: E402  (benchmarks/picture.py: it puts the project on the path)

import pbem.render  # noqa: E402
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire  # noqa: E402
from pbem.games.imperial2030.kind import Imperial2030  # noqa: E402
from pbem.render.boundedcache import Remembered  # noqa: E402
from pbem.render.picture import render_png  # noqa: E402


def forget_everything() -> None:
    """Empty every bounded memory of the drawing (each module's ``Remembered`` s), so that the next picture is
    drawn from nothing."""
    for found in pkgutil.iter_modules(pbem.render.__path__, "pbem.render."):
        for value in vars(importlib.import_module(found.name)).values():
            if isinstance(value, Remembered):
                value.clear()


def measure(name: str, picture: Callable[[Any], Any], states: list[Any], write: Path | None) -> None:
    render_png(picture(states[0]))  # load Pillow and the fonts outside the timing
    sizes, times, pictures = [], [], []
    for state in states:
        scene = picture(state)
        forget_everything()
        begin = time.process_time()
        data = render_png(scene)
        times.append(time.process_time() - begin)
        sizes.append(len(data))
        pictures.append(data)
    print(f"picture bytes, {name}: median {statistics.median(sizes):,.0f}, min {min(sizes):,}, max {max(sizes):,} "
          f"({len(sizes)} pictures); draw+encode median {statistics.median(times) * 1e3:.1f} ms")
    if write is not None:
        middle = sorted(range(len(sizes)), key=sizes.__getitem__)[len(sizes) // 2]
        (write / f"board-{name}.png").write_bytes(pictures[middle])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=6, help="seeded games per kind")
    parser.add_argument("--moves", type=int, default=400, help="random moves per game, at most")
    parser.add_argument("--every", type=int, default=8, help="moves between two pictures")
    parser.add_argument("--write", type=Path, help="a folder to write each kind's median picture to")
    args = parser.parse_args()
    imperial, eight = Imperial2030(), EightMinuteEmpire()
    measure("imperial2030", lambda s: imperial.picture(s, game="w"),
            imperial_states(args.games, args.moves, args.every), args.write)
    measure("eight-minute-empire", lambda s: eight.picture(s, game="g"),
            eme_states(args.games, args.moves, args.every), args.write)
    print(f"(code measured: {Path(sys.modules[render_png.__module__].__file__ or '').parent})")


if __name__ == "__main__":
    main()
