"""``pbem demo``: a whole game played by email on a bare machine, with bot players.

With no configuration at all, :class:`Demo`

1. makes a directory (``--dir``, or a temporary one) holding an SQLite
   database (``pbem.db``), the mail of every address (``mail/<address>/``,
   Maildirs) and a configuration file (``pbem.toml``) that points at both;
2. starts the mail hub (``pbem.mail.hub``) on a free loopback port;
3. creates a game for bots ``bot1@demo.pbem`` … (and the people named by
   ``--humans``), queueing the welcome mails with each seat's token in the
   ``Reply-To``, as ``pbem game new`` does with a mail configuration;
4. runs the moderator (``pbem.daemon`` over a
   :class:`pbem.mail.MaildirInbox` reading ``mail/moderator@demo.pbem/``,
   sending through the hub by SMTP) and the bots (``pbem.bots``, reading
   their Maildirs, answering by SMTP through the hub) in threads of this
   process;
5. shows progress on one line (round, leading nation, mails exchanged) until
   the game ends by the rules, then prints the final scores and where the
   mailboxes are.

Everything goes through real mail: SMTP into the hub, Maildir files out, the
same inbound pipeline (tokens, sender check, one transaction per mail) and
outbox as with IMAP in production. People given by ``--humans`` answer with
``pbem mail reply --dir DIR --as NAME "ORDERS"`` or any mail client pointed
at the hub (SMTP on the port printed, their Maildir to read).
"""
from __future__ import annotations

from pbem.demo.game import Demo, bot_languages
from pbem.demo.results import DOMAIN, GAME, MODERATOR, DemoOptions, DemoResult, Progress, load_demo, write_result
from pbem.demo.text import ProgressLine, main_text, seat_mailbox, summary_lines

__all__ = ["DOMAIN", "GAME", "MODERATOR", "Demo", "DemoOptions", "DemoResult", "Progress", "ProgressLine",
           "bot_languages", "load_demo", "main_text", "seat_mailbox", "summary_lines", "write_result"]
