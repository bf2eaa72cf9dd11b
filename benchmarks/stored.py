"""What the moderator draws and stores per move: pictures drawn per order, picture bytes stored per move.

Three-player Imperial 2030 games by mail (SQLite, in this process), each
order handled as the inbound flow handles it (``process_message``), its mail
written and not yet sent:

``pictures drawn per order, every seat BOARD OFF: X``
    A game whose default is the board and whose seats all answered
    ``BOARD OFF``: no mail of a move carries the board, so none should be
    drawn (must be 0).
``picture bytes stored per move: X KB (Y mails carry it)``
    A game where every seat takes the board: the bytes of pictures in the
    database per move before its mail is sent (the picture stored once for
    all the mails that carry it, or a copy in every mail's row).

The code measured is the one on the path: this tree, or an older one named by
``PYTHONPATH`` (its own module names are looked up, from before and after
``pbem/moderator/`` became a package), so that before and after can be
compared with the same script::

    python benchmarks/stored.py [--orders 12]
    PYTHONPATH=/path/to/old/tree /path/to/old/tree/.venv/bin/python benchmarks/stored.py

``benchmarks/scale.py`` prints the same two lines last.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This folder's engine.py would hide the engine package; the project goes after PYTHONPATH.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE] + [str(HERE.parent)]

from sqlalchemy import inspect, text  # noqa: E402

import pbem  # noqa: E402
from pbem.store import Database, find_game, seats  # noqa: E402
from pbem.store.mailprefs import set_prefs  # noqa: E402

TREE = Path(pbem.__file__).resolve().parent.parent
sys.path.insert(0, str(TREE / "tests"))
mailflowkit: Any = importlib.import_module("mailflowkit")
try:
    process_message: Any = importlib.import_module("pbem.moderator.inbound.handler").process_message
    drawing: Any = importlib.import_module("pbem.moderator.notify.pictures")  # draws with its own render_png
except ImportError:  # a tree from before pbem/moderator/ was a package: it loaded render_png when it drew
    process_message = importlib.import_module("pbem.mailflow.inbound").process_message
    drawing = importlib.import_module("pbem.render.picture")


@dataclass(frozen=True)
class Stored:
    drawn_per_order_board_off: float  # pictures drawn per order, every seat BOARD OFF
    bytes_per_move: float  # picture bytes stored per move, every seat taking the board
    mails_per_move: float  # mails that carry the board per move


def play(directory: str, orders: int, board: bool, drawn: list[int]) -> tuple[float, float, float]:
    """(pictures drawn, picture bytes stored, mails that carry a picture), each per order, in a new game."""
    db = Database(f"sqlite:///{directory}/board-{board}.db")
    try:
        table = mailflowkit.Table(db, mailflowkit.config_for())
        table.create(players=3)
        if not board:
            with db.transaction() as session:
                for seat in seats(session, find_game(session, table.name)):
                    set_prefs(session, seat, board=False)
        with db.engine.begin() as connection:  # only the moves' mail counts, not the welcomes
            connection.execute(text("UPDATE outbox SET status = 'sent'"))
        drawn.clear()
        for uid in range(1, orders + 1):
            player, order = table.an_order()
            raw = table.mail_from(player, order + "\n", message_id=f"<stored-{uid}@example.org>")
            outcome = process_message(db, table.config, raw, "INBOX", 1, uid, mailflowkit.NOW,
                                      moderator=table.moderator)
            assert outcome.outcome == "applied", outcome
        with db.engine.begin() as connection:
            if "pictures" in inspect(connection).get_table_names():
                stored = connection.execute(text("SELECT coalesce(sum(length(png)), 0) FROM pictures")).scalar()
                carried = connection.execute(text("SELECT count(*) FROM outbox WHERE picture_id IS NOT NULL")).scalar()
            else:  # each mail's row kept its own copy
                stored = connection.execute(text(
                    "SELECT coalesce(sum(length(picture)), 0) FROM outbox WHERE status = 'queued'")).scalar()
                carried = connection.execute(text(
                    "SELECT count(*) FROM outbox WHERE status = 'queued' AND picture IS NOT NULL")).scalar()
        return len(drawn) / orders, int(stored or 0) / orders, int(carried or 0) / orders
    finally:
        db.dispose()


def stored_per_move(orders: int = 12) -> Stored:
    drawn: list[int] = []
    original = drawing.render_png

    def counting(scene: Any) -> bytes:
        drawn.append(1)
        return bytes(original(scene))

    drawing.render_png = counting
    try:
        with tempfile.TemporaryDirectory(prefix="pbem-stored-") as directory:
            off = play(directory, orders, False, drawn)
            on = play(directory, orders, True, drawn)
    finally:
        drawing.render_png = original
    return Stored(off[0], on[1], on[2])


def lines(orders: int = 12) -> list[str]:
    stored = stored_per_move(orders)
    return [f"pictures drawn per order, every seat BOARD OFF: {stored.drawn_per_order_board_off:.2f}",
            f"picture bytes stored per move: {stored.bytes_per_move / 1024:.0f} KB "
            f"({stored.mails_per_move:.1f} mails carry it)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orders", type=int, default=12, help="orders per game (default 12)")
    args = parser.parse_args()
    print(f"# code measured: {TREE}")
    for line in lines(args.orders):
        print(line)


if __name__ == "__main__":
    main()
