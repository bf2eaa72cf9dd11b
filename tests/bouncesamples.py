"""Bounces as real mail servers write them, around a mail of ours: Postfix and Exim, RFC 3464 and free-form.

Each function takes the bytes of the original mail (as the relay received it)
and the address that failed, and returns the bounce's bytes with CRLF line
ends, laid out as the server writes it (its notification text, the
``message/delivery-status`` part, the original attached, or its header
only, or quoted as text).
"""
from __future__ import annotations

import itertools

MTA = "mx.games.test"
_ids = itertools.count(1)


def _crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def _head_of(original: bytes) -> bytes:
    for separator in (b"\r\n\r\n", b"\n\n"):
        head, found, _ = original.partition(separator)
        if found:
            return head + b"\r\n"
    return original


def postfix_failed(original: bytes, recipient: str, *, moderator: str = "pbem@games.test") -> bytes:
    """Postfix's 'Undelivered Mail Returned to Sender': 550 5.1.1, the whole original attached."""
    queue_id = f"3F2A81C{next(_ids):04d}"
    boundary = f"{queue_id}.1906718405/{MTA}"
    head = f"""Return-Path: <>
Received: by {MTA} (Postfix)
	id {queue_id}; Mon,  3 Jun 2030 12:00:05 +0000 (UTC)
Date: Mon,  3 Jun 2030 12:00:05 +0000 (UTC)
From: MAILER-DAEMON@{MTA} (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: {moderator}
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="{boundary}"
Content-Transfer-Encoding: 8bit
Message-Id: <20300603120005.{queue_id}@{MTA}>

This is a MIME-encapsulated message.

--{boundary}
Content-Description: Notification
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

This is the mail system at host {MTA}.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

For further assistance, please send mail to postmaster.

If you do so, please include this problem report. You can
delete your own text from the attached returned message.

                   The mail system

<{recipient}>: host mx.example.org[192.0.2.25] said: 550 5.1.1
    <{recipient}>: Recipient address rejected: User unknown in virtual mailbox
    table (in reply to RCPT TO command)

--{boundary}
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; {MTA}
X-Postfix-Queue-ID: {queue_id}
X-Postfix-Sender: rfc822; {moderator}
Arrival-Date: Mon,  3 Jun 2030 12:00:04 +0000 (UTC)

Final-Recipient: rfc822; {recipient}
Original-Recipient: rfc822;{recipient}
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.org
Diagnostic-Code: smtp; 550 5.1.1 <{recipient}>: Recipient address rejected:
    User unknown in virtual mailbox table

--{boundary}
Content-Description: Undelivered Message
Content-Type: message/rfc822
Content-Transfer-Encoding: 8bit

"""
    return _crlf(head) + original.rstrip(b"\r\n") + b"\r\n\r\n" + _crlf(f"--{boundary}--\n")


def postfix_delayed(original: bytes, recipient: str, *, moderator: str = "pbem@games.test") -> bytes:
    """Postfix's 'Delayed Mail (still being retried)': 4.4.1, the original's header only."""
    queue_id = f"7B1C02D{next(_ids):04d}"
    boundary = f"{queue_id}.1906732805/{MTA}"
    head = f"""Return-Path: <>
Date: Mon,  3 Jun 2030 16:00:05 +0000 (UTC)
From: MAILER-DAEMON@{MTA} (Mail Delivery System)
Subject: Delayed Mail (still being retried)
To: {moderator}
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="{boundary}"
Content-Transfer-Encoding: 8bit
Message-Id: <20300603160005.{queue_id}@{MTA}>

This is a MIME-encapsulated message.

--{boundary}
Content-Description: Notification
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

This is the mail system at host {MTA}.

####################################################################
# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #
####################################################################

Your message could not be delivered for more than 4 hour(s).
It will be retried until it is 5 day(s) old.

                   The mail system

<{recipient}>: connect to mx.example.org[192.0.2.25]:25: Connection timed out

--{boundary}
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; {MTA}
X-Postfix-Queue-ID: {queue_id}
X-Postfix-Sender: rfc822; {moderator}
Arrival-Date: Mon,  3 Jun 2030 12:00:04 +0000 (UTC)

Final-Recipient: rfc822; {recipient}
Original-Recipient: rfc822;{recipient}
Action: delayed
Status: 4.4.1
Diagnostic-Code: X-Postfix; connect to mx.example.org[192.0.2.25]:25:
    Connection timed out
Will-Retry-Until: Sat,  8 Jun 2030 12:00:04 +0000 (UTC)

--{boundary}
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers
Content-Transfer-Encoding: 8bit

"""
    return _crlf(head) + _head_of(original) + _crlf(f"\n--{boundary}--\n")


def exim_failed(original: bytes, recipient: str, *, moderator: str = "pbem@games.test") -> bytes:
    """Exim 4.9x's 'Mail delivery failed': a DSN with X-Failed-Recipients, the original attached."""
    boundary = f"1906718405-eximdsn-{1804289383 + next(_ids)}"
    head = f"""Return-path: <>
Received: from Debian-exim by {MTA} with local (Exim 4.96)
	id 1sDx2r-000Abc-5x
	for {moderator}; Mon, 03 Jun 2030 12:00:05 +0000
X-Failed-Recipients: {recipient}
Auto-Submitted: auto-replied
From: Mail Delivery System <Mailer-Daemon@{MTA}>
To: {moderator}
Content-Type: multipart/report; report-type=delivery-status; boundary={boundary}
MIME-Version: 1.0
Subject: Mail delivery failed: returning message to sender
Message-Id: <E1sDx2r-000Abc-{next(_ids)}@{MTA}>
Date: Mon, 03 Jun 2030 12:00:05 +0000

--{boundary}
Content-type: text/plain; charset=us-ascii

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  {recipient}
    host mx.example.org [192.0.2.25]
    SMTP error from remote mail server after RCPT TO:<{recipient}>:
    550 5.2.1 <{recipient}>: mailbox disabled

--{boundary}
Content-type: message/delivery-status

Reporting-MTA: dns; {MTA}

Action: failed
Final-Recipient: rfc822;{recipient}
Status: 5.0.0
Remote-MTA: dns; mx.example.org
X-Remote-MTA: dns; mx.example.org
Diagnostic-Code: smtp; 550 5.2.1 <{recipient}>: mailbox disabled

--{boundary}
Content-type: message/rfc822

"""
    return _crlf(head) + original.rstrip(b"\r\n") + b"\r\n\r\n" + _crlf(f"--{boundary}--\n")


def exim_classic(original: bytes, recipient: str, *, moderator: str = "pbem@games.test") -> bytes:
    """Older Exim (and many hosted services): no report at all, the original quoted as plain text."""
    head = f"""Return-path: <>
X-Failed-Recipients: {recipient}
Auto-Submitted: auto-replied
From: Mail Delivery System <Mailer-Daemon@{MTA}>
To: {moderator}
Subject: Mail delivery failed: returning message to sender
Message-Id: <E1rQz9k-0007Xy-{next(_ids)}@{MTA}>
Date: Mon, 03 Jun 2030 12:00:05 +0000

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  {recipient}
    Mailbox quota exceeded

------ This is a copy of the message, including all the headers. ------

"""
    return _crlf(head) + original


def forged(recipient: str, *, moderator: str = "pbem@games.test", message_id: str = "<made-up@elsewhere.example>",
           ) -> bytes:
    """A DSN anybody can write: it names a player's address, and quotes a mail that is none of ours."""
    boundary = "forged-boundary-1"
    return _crlf(f"""Return-Path: <>
From: MAILER-DAEMON@mx.attacker.example (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: {moderator}
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="{boundary}"
Message-Id: <forged-{next(_ids)}@mx.attacker.example>

--{boundary}
Content-Type: text/plain

Your message could not be delivered.

--{boundary}
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.attacker.example

Final-Recipient: rfc822; {recipient}
Action: failed
Status: 5.1.1

--{boundary}
Content-Type: text/rfc822-headers

From: Play-by-email moderator <{moderator}>
To: {recipient}
Subject: [g1] Move 3
Message-ID: {message_id}

--{boundary}--
""")
