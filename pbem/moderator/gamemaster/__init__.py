"""The game master's tools: look at a game, order for a player, undo, replace a player, pause, resend.

Every command is one database transaction that changes the game and queues
every mail it causes in the outbox (ARCHITECTURE: nothing is sent inside a
transaction; the outbox sender delivers committed mail), but a move's mail
(``force``, ``order``, a deadline's default, the stand-in): the move is
noted to tell in the command's transaction and its mail written right after
the commit (``pbem.moderator.notify.telling``), before the command returns.
The deadline tick (``pbem.moderator.tick``) uses the same machinery to apply
a passive default. Every mail is written by the composer
(``pbem.moderator.notify``), a move's by ``pbem.moderator.notify.turnmail``
exactly as a mailed order's: each seat in its mail mode and board choice,
one mail per seat (see ``commands`` for the notices, docs/game-master.md for
what each command sends). ``undo`` and ``replace`` first tell the moves
still untold, so that every seat hears of a move before it is taken back.

    game_show(db, name)                      GameView: seats, status, whose turn, deadlines, log, outbox
    force(db, name, player, text)            orders for a player, as if mailed; reports say so
    order(db, name, player, text)            a player's orders given locally (pbem order), mailed like a mail's
    undo(db, name)                           roll back the last logged action and tell everyone
    replace(db, name, old, new, email)       a new player takes a seat
    pause(db, name) / resume(db, name)       stop / restart the game (orders refused, deadlines frozen)
    resend(db, name, player=None)            the current report (and prompt) again
    extend(db, name, hours)                  more time for the decisions pending now (``extending``)
    end_game(db, name)                       end the game before its rules do (``ending``)
    refuse_if_paused(session, game)          for the mail pipeline: raises GamePaused
    export_game(db, name, public=False)      the whole history, to replay or publish (export_json, export_text)

Decisions:

- **force** applies the text through the order layer exactly like a player's
  mail (waiting lines resume, the end of a maneuver message ends the maneuver),
  also in a paused game (the game master may repair a paused game). The log
  has no column for who typed an order, so the entry is the player's; every
  seat told of the move reads "The game master gave these orders for ann: …"
  (at once, or in the news of its next mail).
- **undo** deletes the last log row (one action, not one message) and every
  snapshot made after it, re-saves the snapshot of the replayed log, drops
  waiting lines that began after it or no longer wait for anything, reopens a
  finished game, and mails every seat what was undone (narrated as the
  reader may see it) with the position now, a decider's with its prompt.
  The undo notice restarts the deadline clock (pbem.moderator.deadlines.CLOCK_PURPOSES).
- **replace** renames the player in the setup JSON, the seats table, every
  log row and the waiting lines, then replays the log (seating and deal do not
  depend on names, so the game is the same game) and re-saves the snapshot.
  Token: a new one is issued when the e-mail address changes (the player who
  left must not keep playing the seat); a pure rename at the same address
  keeps it. The new player gets the welcome mail with the token (Reply-To
  with it when the moderator address is known, and a ``TOKEN …`` line in the
  body); every seat and the old address are told. Restarts the clock.
- **pause** sets ``settings.paused``: the mail pipeline refuses orders
  (``refuse_if_paused``), the tick skips the game. **resume** clears it and
  restarts the clock: every pending decision gets its full deadline again,
  counted from the resume (the resume notice in the outbox is the new start).
- **resend** renders the current report (the events of the last message, as
  ``pbem report`` does) and, in the same mail, the prompt for a deciding
  player anew, under a "sent again" line, with new Message-IDs (outbox
  purpose ``resend``).

The words: every sentence these commands and the deadline tick (``pbem.moderator.tick``) write for a player
or the game master lives in a Jinja template under ``templates/core``, marked for translation (``_()``,
``ngettext``, named placeholders); Python decides what to say and hands the template typed values (names,
numbers, flags, the game's own words such as ``decision_words``), never a sentence. One file per thing said,
named by its family:

- ``core/notice_<what>.j2``: a headed notice in a mail (``notice_paused``, ``notice_reminder``,
  ``notice_stalled``, ...), laid out by the ``core/_note_block.j2`` macro as ``note_block`` would and
  rendered strictly (``common.notice``);
- ``core/move_note_<what>.j2``: a sentence the mail of a move carries (``move_note_forced``,
  ``move_note_stand_in``, ...), which ``pbem.moderator.notify`` lays out (``common.later``: said in each seat's language);
- ``core/subjects.j2``: the words of every subject, one ``subject`` switch (``common.Subject``); the
  ``[GAME] Move N:`` frame stays ``pbem.moderator.notify.subjects``'s;
- ``core/tick_report.j2`` (``common.TickLine``), ``core/setting_change.j2`` and ``core/export.j2``: what
  ``pbem deadlines tick``, ``pbem game set`` and ``pbem export --format text`` print;
- ``core/_<name>.j2``: a macro library, imported by the others, never rendered alone.

Each template's opening comment says where it is used and what every value means. Errors raised for the
command line and log lines stay in Python.

Message-IDs: ``pbem.mail.outbound.message_id_for(game, version, recipient,
purpose)``; the purpose carries a time stamp (the clock start for reminders
and alerts, the moment of the command otherwise), because ``undo`` makes
versions be played again: a mail about the new version N must not be taken
for the old one.
"""
from __future__ import annotations

from pbem.moderator.gamemaster.commands import (
    Forced,
    PauseChange,
    Replaced,
    Resent,
    Undone,
    force,
    is_paused,
    order,
    pause,
    refuse_if_paused,
    replace,
    resend,
    resume,
    undo,
)
from pbem.moderator.gamemaster.common import (
    DEFAULT_MAIL_DOMAIN,
    RECENT_ACTIONS,
    RETRIES,
    GameMasterError,
    GamePaused,
    MailContext,
    NothingToUndo,
)
from pbem.moderator.gamemaster.export import (
    FORMAT,
    ExportedAction,
    ExportedSeat,
    GameExport,
    export_game,
    export_json,
    export_text,
)
from pbem.moderator.gamemaster.playing import (
    Played,
    alert_game_master,
    apply_default,
    play_in_session,
    remind,
    stand_in,
)
from pbem.moderator.gamemaster.show import GameView, LoggedAction, PendingView, SeatView, game_show
from pbem.moderator.gamemaster.tuning import SettingsChange, set_game

__all__ = [
    "SettingsChange",
    "set_game",
    "DEFAULT_MAIL_DOMAIN",
    "GameMasterError",
    "GamePaused",
    "MailContext",
    "NothingToUndo",
    "RECENT_ACTIONS",
    "RETRIES",
    "Played",
    "alert_game_master",
    "apply_default",
    "stand_in",
    "play_in_session",
    "remind",
    "GameView",
    "LoggedAction",
    "PendingView",
    "SeatView",
    "game_show",
    "Forced",
    "PauseChange",
    "Replaced",
    "Resent",
    "Undone",
    "force",
    "is_paused",
    "order",
    "pause",
    "refuse_if_paused",
    "replace",
    "resend",
    "resume",
    "undo",
    "FORMAT",
    "ExportedAction",
    "ExportedSeat",
    "GameExport",
    "export_game",
    "export_json",
    "export_text",
]
