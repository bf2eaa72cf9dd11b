"""``pbem run`` with mail waiting behind each move: the pictures come after the moves, with their mail.

The daemon here reads a real Dovecot and sends through aiosmtpd, with its
picture helper (``pbem.moderator.notify.pictures``) and the outbox's own round a
minute apart (``--outbox-interval 60``): mail that waited for its picture
must leave once the picture reached it, with the picture, and none may wait
for that round (a picture that never reached its mail would hold it a minute,
``pbem.moderator.notify.latepictures``). The orders are followed by mail that queues
nothing, so that the last moves, too, have mail waiting behind them.
"""
from __future__ import annotations

import pytest
from mailflowkit import MODERATOR, raw_mail, wait_until
from mailservers import dovecot, dovecot_server, smtpd  # noqa: F401  (fixtures)
from test_crash_safety import Rig, rig  # noqa: F401  (fixture)

AWAY = 10


@pytest.mark.slow
def test_mail_that_waited_for_its_picture_leaves_with_it(rig: Rig) -> None:  # noqa: F811
    process, errors = rig.start("run", "--log-level", "DEBUG", "--outbox-interval", "60")
    try:
        wait_until(lambda: "the picture helper is ready" in errors.read_text(), timeout=60, what="the helper")
        wait_until(lambda: len(rig.smtpd.received) >= rig.welcomes, what="the welcome mails")
        rig.append_all()  # all at once: each move has mail waiting behind it
        for n in range(AWAY):  # out-of-office answers: they queue no mail
            rig.dovecot.append(raw_mail("ann@example.org", MODERATOR, "I am away.", subject="Away",
                                        headers="Auto-Submitted: auto-replied", message_id=f"<away-{n}@example.org>"))
        wait_until(rig.complete, timeout=30, what="every mail sent, well before the outbox's own round")
        text = rig.stop(process, errors)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "reached the mail that waited for it" in text and "Traceback" not in text
    received = {str(mail.message["Message-ID"]): mail.message for mail in rig.smtpd.received}
    boards = [row for row in rig.outbox() if "picture_alt" in row.headers]
    assert boards and all(any(part.get_content_type() == "image/png" for part in received[row.message_id].walk())
                          for row in boards)
