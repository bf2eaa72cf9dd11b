"""The game master's commands: game show, force, undo, replace, pause, resume, resend, deadlines tick."""
from __future__ import annotations

from typing import Annotated, Any

import typer

from pbem.cli.base import (
    EXIT_ERROR,
    EXIT_REFUSED,
    app,
    echo,
    fail,
    game_app,
    handled,
    options_of,
)
from pbem.cli.lines import refusal_lines
from pbem.cli.style import PlainGroup
from pbem.config import load_config
from pbem.daemon.sendlimits import waiting_reason
from pbem.moderator.gamemaster import MailContext, force, game_show, pause, replace, resend, resume, set_game, undo
from pbem.moderator.tick import tick
from pbem.render.text import utc_stamp
from pbem.store.settings import FALLBACK_DECISION

# --- the game master's commands: game show, force, undo, replace, pause, resume, resend, deadlines tick ---
# (pbem.moderator.gamemaster and pbem.moderator.tick; every command is one transaction that also queues the mails it causes)

deadlines_app = typer.Typer(help="Deadlines of pending decisions: reminders, passive defaults, alerts.", cls=PlainGroup,
                            no_args_is_help=True, pretty_exceptions_show_locals=False)
app.add_typer(deadlines_app, name="deadlines")


def gm_mail(ctx: typer.Context) -> Any:
    """The mail settings of the game master's commands: [moderator] address and game_master of the config."""
    return MailContext.from_config(load_config(options_of(ctx).config))


def mails_line(mail: Any, count: int) -> list[str]:
    """"Mails queued: N." where mail is configured; nothing at all where it is not (nothing was queued)."""
    return [f"Mails queued: {count}."] if mail.moderator_address else []


def gm_when(moment: Any) -> str:
    return utc_stamp(moment) if moment is not None else "-"


def _sending_held(ctx: typer.Context) -> str | None:
    """Why queued mail is held back now (a sending limit, a relay that asked us to slow down), if it is."""
    from datetime import UTC, datetime

    options = options_of(ctx)
    limits = load_config(options.config).limits
    with options.moderator().db.transaction() as session:
        return waiting_reason(session, limits, datetime.now(UTC))


@game_app.command("show")
@handled
def game_show_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """Show a game for the game master: seats, whose turn, deadlines, waiting lines, last moves, outbox."""
    view = game_show(options_of(ctx).moderator().db, name)
    echo(f"Game {view.name}: {view.status}{', PAUSED' if view.paused else ''}, move {view.version}, "
         f"created {gm_when(view.created)}.")
    echo(view.turn)
    echo("Game masters: " + (", ".join(view.masters) if view.masters else "none (alerts go to [moderator] game_master)"))
    echo("Seats (clockwise):")
    for seat in view.seats:
        governs = f"  {view.holding_verb} {', '.join(seat.governs)}" if seat.governs else ""
        bounced = ("  [unreachable: its mail bounces; held, not sent]" if seat.unreachable
                   else f"  [{seat.bounces} bounce(s) in a row]" if seat.bounces else "")
        echo(f"  {seat.seat}. {seat.name} <{seat.email}>{governs}{'  [token]' if seat.token else ''}{bounced}")
    if view.pending:
        echo("Pending:")
    for p in view.pending:
        echo(f"  {p.player}: {p.what} ({p.kind})")
        due = f"deadline {gm_when(p.due)}" if p.due is not None else "no deadline"
        reminders = f"; reminders {', '.join(gm_when(r) for r in p.reminders)}" if p.reminders else ""
        then = (f"then the game takes {p.default}" if p.default is not None
                else "then the game master is alerted")
        paused = " (paused: the clock restarts on resume)" if view.paused else ""
        echo(f"    pending since {gm_when(p.since)}; {due}{reminders}; {then}{paused}")
    if view.waiting:
        echo("Waiting lines:")
        for player, lines in view.waiting.items():
            echo(f"  {player}: " + ("; ".join(f"line {n}: {t}" for n, t in lines) or "the end of the message"))
    if view.recent:
        echo("Last moves (newest first):")
        width = max(len(a.player) for a in view.recent)
        for a in view.recent:
            echo(f"  {a.version + 1:>4}  {a.player:<{width}}  {a.order}  ({gm_when(a.applied)})")
    echo("Outbox: " + (", ".join(f"{count} {status}" for status, count in sorted(view.outbox.items()))
                       or "no mail") + ".")
    if view.outbox.get("queued"):
        held = _sending_held(ctx)
        if held:
            echo(f"  Queued mail waits: {held}.")
    hours = ", ".join(f"{'other' if kind == FALLBACK_DECISION else kind} {'none' if value is None else f'{value:g}h'}"
                      for kind, value in view.deadlines)
    reminders = ", ".join(f"{h:g}h" for h in view.settings.reminder_hours)
    echo(f"Deadlines: {hours}; reminders {reminders or 'none'} before.")
    s = view.settings
    echo(f"Open cash: {'on' if s.open_cash else 'off'}; mail: {s.mail_default}, board "
         f"{'on' if s.board_default else 'off'} for seats that chose none; press: {s.press}.")
    limit = f", the game master asked after {s.absent_limit} in a row" if s.absent == "bot" and s.absent_limit else ""
    if s.allow or s.deny:
        echo(f"Who may write: allow {', '.join(s.allow) or 'everyone'}; deny {', '.join(s.deny) or 'nobody'}.")
    echo(f"Absent players: {s.absent}{limit}; vacations: {s.vacation}, up to {s.vacation_cap_days} days "
         f"(pbem game set {view.name} key=value changes these).")


@game_app.command("set")
@handled
def game_set_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    pairs: Annotated[list[str], typer.Argument(
        metavar="KEY=VALUE",  # Typer adds the "..." of a repeated argument itself
        help="deadline.<decision>=HOURS (0: none; the decisions are the game's own, `pbem game show` lists them), "
             "deadline.default=HOURS, reminders=H,H|none, open_cash=on|off, mail=every|turn|round|daily, "
             "board=on|off, press=none|signed|anonymous, absent=alert|bot, absent_limit=N, vacation=stretch|bot, "
             "vacation_cap=DAYS, language=LANG, allow=ADDRESSES|none, deny=ADDRESSES|none (addresses and domains, "
             "joined by commas).")],
) -> None:
    """Change a running game's settings: deadlines, reminders, mail defaults, press, absences, who may write. All or
    nothing."""
    change = set_game(options_of(ctx).moderator().db, name, pairs)
    echo(f"Game {change.name}: " + "; ".join(change.changed) + ".")


@app.command("force")
@handled
def force_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    text: Annotated[str, typer.Argument(help="The orders, one per line (or ';'-separated); '-' reads stdin.")],
    as_player: Annotated[str, typer.Option("--as", metavar="PLAYER", help="The player to give the orders for.")],
) -> None:
    """Give orders for a player (the game master steps in); everyone's report says so."""
    if text == "-":
        text = typer.get_text_stream("stdin").read()
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = force(moderator.db, name, as_player, text, mail=mail)
    kind = moderator.kind_of(name)
    played = done.played
    echo(f"Game {name}, orders for {played.player} given by the game master: "
         f"move {played.version_before} -> {played.version}.")
    for item in played.applied:
        head = "end of message: DONE" if item.implicit else f"line {item.line.number}: {item.line.text}"
        echo(head if item.player == played.player else f"{item.player} (waiting lines): {head}")
        for sentence in kind.narrate(played.state, item.events) or ["(no effect)"]:
            echo(f"  {sentence}")
    if played.refusal is not None:
        for line in refusal_lines(played.refusal):
            echo(line)
    for player, error in played.resumed_refusals:
        echo(f"Waiting orders of {player}:")
        for line in refusal_lines(error):
            echo(f"  {line}")
    for line in mails_line(mail, done.mailed) + kind.pending_lines(played.state):
        echo(line)
    if played.refusal is not None:
        raise typer.Exit(EXIT_REFUSED)


@app.command("undo")
@handled
def undo_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """Take back the last move (one logged action) and tell every player."""
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = undo(moderator.db, name, mail=mail)
    echo(f"Game {name}: undid move {done.entry.version + 1} ({done.entry.player}: {done.order}); "
         f"back at move {done.version}.")
    for player, lines in done.dropped.items():
        echo(f"Dropped waiting lines of {player}: " + ("; ".join(t for _, t in lines) or "the end of a message"))
    for line in mails_line(mail, done.mailed) + moderator.kind_of(name).pending_lines(done.state):
        echo(line)


@app.command("replace")
@handled
def replace_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    old: Annotated[str, typer.Argument(help="The player who leaves.")],
    new: Annotated[str, typer.Argument(help="The player who takes the seat.")],
    email: Annotated[str, typer.Option("--email", metavar="EMAIL", help="The new player's address.")],
) -> None:
    """Give a seat to a new player: renamed everywhere, a new token, everyone told."""
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = replace(moderator.db, name, old, new, email, mail=mail)
    tokens = ("; a new reply token was issued and mailed to them" if done.token else "; the seat keeps its token")
    echo(f"Game {name}: {done.new} <{done.email}> takes over seat {done.seat} from {done.old}"
         + (tokens if mail.moderator_address else "") + ".")
    for line in mails_line(mail, done.mailed):
        echo(line)


@app.command("pause")
@handled
def pause_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """Pause a game: orders are refused and deadlines stand still until it is resumed."""
    mail = gm_mail(ctx)
    done = pause(options_of(ctx).moderator().db, name, mail=mail)
    echo(" ".join([f"Game {name} is paused.", *mails_line(mail, done.mailed)]))


@app.command("resume")
@handled
def resume_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """Resume a paused game; the deadlines of pending decisions count from now."""
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = resume(moderator.db, name, mail=mail)
    echo(" ".join([f"Game {name} is running again.", *mails_line(mail, done.mailed)]))
    for d in done.deadlines:
        echo(f"  {d.player} ({d.kind}): deadline {gm_when(d.due)}")


@app.command("resend")
@handled
def resend_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    to: Annotated[
        str | None,
        typer.Option("--to", metavar="PLAYER", show_default=False, help="Only this player (default: everyone)."),
    ] = None,
) -> None:
    """Queue the current report (and the prompt, for a deciding player) again."""
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    if not mail.moderator_address:
        fail("no mail is configured: nothing can be sent. Give a configuration with [moderator] address and [smtp] "
             "(pbem --config FILE resend ...); every seat's mail then carries its reply token.")
    done = resend(moderator.db, name, to, mail=mail)
    for player, kind in done.mails:
        echo(f"Queued the {kind} for {player} again.")
    echo(f"Mails queued: {len(done.mails)}.")


@deadlines_app.command("tick")
@handled
def deadlines_tick(ctx: typer.Context) -> None:
    """Send due reminders, apply passive defaults of expired decisions, alert the game master (once).

    Looks at every active game, not only those whose alarm rang (as ``pbem run`` and ``pbem poll`` do).
    """
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    report = tick(moderator.db, mail_domain=mail.domain, moderator_address=mail.moderator_address,
                  game_master=mail.game_master, everything=True)
    for line in report.lines():
        echo(line)
    if report.errors:
        raise typer.Exit(EXIT_ERROR)
