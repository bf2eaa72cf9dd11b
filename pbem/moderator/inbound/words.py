"""The inbound core's words: its templates (``templates/core``) rendered for the two kinds of text it sends.

* :func:`note` — a headed note block (``YOUR ORDERS WERE NOT APPLIED`` and
  its wrapped paragraphs), laid out to 78 columns by the template itself, so
  it is rendered strictly: a line the template got wrong fails the tests
  instead of being folded. A note block is followed by a blank line before
  whatever comes after it (a prompt, a report), which rendering's ``finish``
  takes off the end: :func:`note` puts it back.
* :func:`said` — a text laid out a paragraph to a line, or quoting the
  player's own words as written (their subject, their press), which the mail
  writer wraps (``pbem.mail.wrap``): rendered as the template writes it, since
  ``finish`` would fold the paragraphs, squeeze the player's blank lines and
  turn their letters to ASCII.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.render.env import environment, render
from pbem.render.text import utc_stamp


def note(template: str, /, **values: Any) -> str:
    """``templates/core/<template>.j2``, a headed note block, with the blank line that ends it."""
    return render(f"core/{template}.j2", strict=True, **values) + "\n"


def said(template: str, /, **values: Any) -> str:
    """``templates/core/<template>.j2`` as the template writes it (see the module docstring)."""
    return environment().get_template(f"core/{template}.j2").render(**values)


@dataclass(frozen=True)
class Until:
    """The end of an absence as a player is told it (``templates/core/until.j2``).

    ``VACATION UNTIL 2030-12-24`` means all of that day, so it is kept as the
    next midnight; told as '2030-12-25 00:00 UTC' it reads as a day too late,
    so a vacation that ends at midnight is told by its last whole day.
    """

    moment: str  # '2030-06-03 12:00 UTC' (pbem.render.text.utc_stamp)
    last_day: str | None  # '2030-12-24' when it ends at midnight UTC, else None

    @classmethod
    def of(cls, moment: datetime) -> Until:
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
        midnight = (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0)
        return cls(utc_stamp(moment), f"{moment - timedelta(days=1):%Y-%m-%d}" if midnight else None)
