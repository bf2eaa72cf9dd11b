"""The log as JSON lines (``--log-format json``), for journald and log shippers.

Why: a shipper (journald's ``MESSAGE`` field read by Loki, Vector, Fluent
Bit …) parses one JSON object per line without guessing where a message or
a traceback ends; the text format's multi-line tracebacks are split into
unrelated records. Each line holds ``time`` (ISO 8601, UTC, milliseconds),
``level``, ``logger``, ``message`` and, when there is one, ``exception``
(the traceback as text). Nothing is added that the text format does not
show: the messages themselves never carry a password or a reply token
(``pbem.daemon.loop``), and that holds here too.
"""
from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

FORMATS = ("text", "json")

# The libraries whose own logs would carry what ours never do, held at WARNING whatever ``--log-level`` says.
# aiosmtpd's ``mail.log`` writes every LMTP command at INFO (``RCPT TO:<pbem+TOKEN@...>``: a seat's reply
# token) and every line of a mail at DEBUG, besides each connection's comings and goings; imapclient's
# protocol log writes every command and every fetched mail at DEBUG. Their warnings name only a peer and
# a command word. (smtplib logs nothing: it prints its dialogue only under ``set_debuglevel``, which pbem
# never calls.) Alembic's INFO lines are only chatter at every start.
QUIET_LIBRARIES = ("mail.log", "mail.debug", "imapclient", "alembic")


def quiet_libraries(level: int) -> None:
    """Hold the loggers of :data:`QUIET_LIBRARIES` at WARNING (or above, when ``level`` is above)."""
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))


class JsonLines(logging.Formatter):
    """One JSON object per record, on one line (newlines inside are escaped by JSON)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, str] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False)
