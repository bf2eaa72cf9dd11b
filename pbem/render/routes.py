"""Where a link's line runs in a board picture, and its dashes: plain geometry, no drawing.

Why: a straight line between two places that runs under a third place's box
looks like two links through it (Eight-Minute Empire's sea line 17 ~ 16 runs
straight down through regions 2, 3 and 15). Such a line is bowed aside,
just enough to clear every other box, so each line reads as what it is.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pbem.render.scene import Point

Box = tuple[float, float, float, float]  # left, top, right, bottom
# Pixels aside at the middle, least first, on either side: a near bow may still graze a box by an end.
BOWS = tuple(side * bow for bow in (30, 45, 60, 80, 100, 120, 145, 170, 200, 240) for side in (1, -1))
STEP = 4.0  # pixels between the points a line is checked (and dashed) at
CLEARANCE = 3.0


def route(a: Point, b: Point, obstacles: Sequence[Box], within: Box) -> list[Point]:
    """The line from ``a`` to ``b``: straight when it crosses no obstacle, else the least bow that clears all
    and stays ``within`` the map's part of the picture.

    A line no bow clears is left straight (the boxes are drawn over it). Not
    remembered: a picture remembers its routes per link (``pbem.render.links``),
    by only the boxes that matter.
    """
    return list(routed(a, b, within, lambda area: _meeting(area, obstacles)).line)


@dataclass(frozen=True)
class Routing:
    """A route and why: for each line tried before it (by its bow, 0: straight), obstacles that line came
    too near (while one of them stands, the line stays blocked), and the area of the line taken if it
    cleared every obstacle."""

    line: tuple[Point, ...]
    blocked: tuple[tuple[float, frozenset[Box]], ...]
    cleared: Box | None  # None: no line cleared all, the straight one is taken anyway


def routed(a: Point, b: Point, within: Box, near: Callable[[Box], Iterable[Box]]) -> Routing:
    """The route (see ``route``), ``near(area)`` giving the obstacles that meet an area: no other obstacle
    can come near a line whose points lie in that area."""
    blocked: list[tuple[float, frozenset[Box]]] = []
    for bow, line in _attempts(a, b, within):
        dense = _dense(line)
        area = reach(dense)
        hit = _first_hit(dense, near(area))
        if hit is None:
            return Routing(line, tuple(blocked), area)
        blocked.append((bow, frozenset((hit,))))
    return Routing((a, b), tuple(blocked), None)


def _attempts(a: Point, b: Point, within: Box) -> Iterator[tuple[float, tuple[Point, ...]]]:
    """The lines a route may take, by bow, least bowed first (those leaving ``within`` left out); made only
    as far as they are needed."""
    yield 0, (a, b)
    left, top, right, bottom = within
    for bow in BOWS:
        curve = _curve(a, b, bow)
        if all(left <= p.x <= right and top <= p.y <= bottom for p in curve):
            yield bow, tuple(curve)


def blocker(a: Point, b: Point, bow: float, near: Callable[[Box], Iterable[Box]]) -> Box | None:
    """An obstacle that blocks the line of this ``bow`` (0: straight) between ``a`` and ``b``, if any."""
    dense = _dense((a, b) if bow == 0 else _curve(a, b, bow))
    return _first_hit(dense, near(reach(dense)))


def clears(line: Sequence[Point], box: Box) -> bool:
    """Whether ``line`` keeps its clearance from ``box``, as routing checks it."""
    return _first_hit(_dense(line), (box,)) is None


def reach(points: Sequence[Point]) -> Box:
    """The area an obstacle must meet to be near ``points``: their bounds and the clearance
    (low x, low y, high x, high y)."""
    c = CLEARANCE
    xs, ys = [p.x for p in points], [p.y for p in points]
    return (min(xs) - c, min(ys) - c, max(xs) + c, max(ys) + c)


def _meeting(area: Box, obstacles: Iterable[Box]) -> list[Box]:
    low_x, low_y, high_x, high_y = area
    return [box for box in obstacles if box[0] <= high_x and box[2] >= low_x and box[1] <= high_y and box[3] >= low_y]


def _curve(a: Point, b: Point, bow: float, pieces: int = 24) -> list[Point]:
    """A quadratic curve from ``a`` to ``b`` whose middle stands ``bow`` pixels aside of the straight line."""
    length = math.hypot(b.x - a.x, b.y - a.y) or 1.0
    normal = Point(-(b.y - a.y) / length, (b.x - a.x) / length)
    control = Point((a.x + b.x) / 2 + normal.x * bow * 2, (a.y + b.y) / 2 + normal.y * bow * 2)
    points = []
    for i in range(pieces + 1):
        t = i / pieces
        points.append(Point((1 - t) ** 2 * a.x + 2 * (1 - t) * t * control.x + t ** 2 * b.x,
                            (1 - t) ** 2 * a.y + 2 * (1 - t) * t * control.y + t ** 2 * b.y))
    return points


def _dense(points: Sequence[Point], step: float = STEP) -> list[Point]:
    """The polyline as points about ``step`` pixels apart."""
    dense = [points[0]]
    for p, q in zip(points, points[1:], strict=False):
        count = max(1, math.ceil(math.hypot(q.x - p.x, q.y - p.y) / step))
        dense += [Point(p.x + (q.x - p.x) * i / count, p.y + (q.y - p.y) * i / count) for i in range(1, count + 1)]
    return dense


def _first_hit(points: Sequence[Point], near: Iterable[Box]) -> Box | None:
    """The first obstacle (in ``near``'s order) that a point comes within the clearance of, if any."""
    c = CLEARANCE
    for box in near:
        left, top, right, bottom = box[0] - c, box[1] - c, box[2] + c, box[3] + c
        if any(left <= p.x <= right and top <= p.y <= bottom for p in points):
            return box
    return None


def dashes(points: Sequence[Point], dash: float, gap: float) -> list[list[Point]]:
    """The polyline cut into dashes ``dash`` pixels long, ``gap`` apart (Pillow draws no dashed lines)."""
    return [list(piece) for piece in _dashes(tuple(points), dash, gap)]


@lru_cache(maxsize=512)
def _dashes(points: tuple[Point, ...], dash: float, gap: float) -> tuple[tuple[Point, ...], ...]:
    pieces: list[list[Point]] = []
    period, walked = dash + gap, 0.0  # the pattern runs on across the polyline's corners
    for p, q in zip(points, points[1:], strict=False):
        length = math.hypot(q.x - p.x, q.y - p.y)
        at = 0.0
        while at < length:
            phase = walked % period
            span = min((dash - phase) if phase < dash else (period - phase), length - at)
            if phase < dash:
                start, end = _between(p, q, at / length), _between(p, q, (at + span) / length)
                if pieces and phase > 0 and pieces[-1][-1] == start:
                    pieces[-1].append(end)
                else:
                    pieces.append([start, end])
            at += span
            walked += span
    return tuple(tuple(piece) for piece in pieces)


def _between(p: Point, q: Point, t: float) -> Point:
    return p if t == 0 else Point(p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t)
