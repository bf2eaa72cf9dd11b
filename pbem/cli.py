"""The game master's command line (Typer).

    pbem game new NAME --player NAME:EMAIL ... [--deal NATION=PLAYER ...] [--seed N] [--variant V ...]
    pbem game list
    pbem order NAME --as PLAYER "TEXT"     (TEXT "-" reads standard input)
    pbem state NAME [--json]
    pbem board NAME                        the ASCII world board, as players get it
    pbem report NAME --for PLAYER          that player's turn report (and prompt, if they must decide)
    pbem run                               the moderator daemon: IMAP IDLE in, SMTP out (pbem.mailflow)
    pbem poll --once                       for cron: the inbox once, the outbox once
    pbem check                             can we reach the IMAP and SMTP servers of the config?
    pbem game show NAME                    seats, whose turn, deadlines, waiting lines, last moves, outbox
    pbem force NAME --as PLAYER "TEXT"     orders for a player by the game master (mailed like any move)
    pbem undo NAME                         take back the last move and tell everyone
    pbem replace NAME OLD NEW --email E    a new player takes a seat
    pbem pause NAME / pbem resume NAME     stop / restart a game (deadlines count again from the resume)
    pbem resend NAME [--to PLAYER]         queue the current report and prompt again
    pbem deadlines tick                    reminders, passive defaults and alerts that are due, once
    pbem demo [--players N] [--seed S] [--humans NAME ...] [--dir DIR]
                                           a whole game by email on this machine: hub, moderator, bots
    pbem mailhub --root DIR [--port N]     a local mail hub: SMTP on loopback, one Maildir per address
    pbem bot --maildir DIR --smtp HOST:PORT --address ADDR [--strategy S] [--seed N]
                                           a bot player answering its prompts by mail
    pbem mail reply --dir DIR --as NAME ["ORDERS"]
                                           a person's answer in a demo game (no ORDERS: show the prompt)

Global options ``--database URL`` and ``--config FILE`` come before the
command. Exit codes: 0 done, 1 an order was refused, 2 a usage or setup error
(unknown game, bad ``--player``, bad deal, unreachable database). Tracebacks
never show local variables, so a database password cannot leak into a log.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from engine.board import Board
from engine.decisions import Decision, pending
from engine.errors import EngineError
from engine.events import Event
from engine.game import apply
from engine.model import GameState, Variant
from engine.setup import new_game
from pbem import store
from pbem.config import database_url, load_config
from pbem.errors import BadSetup, PbemError, UnknownPlayer
from pbem.narrate import narrate
from pbem.moderator import AppliedLine, Moderator, NewGame, Query, Refusal, Resumed, SubmitResult, Waiting, \
    describe_decision
from pbem.orders import format_action, legal_orders
from pbem.render import render_board, render_prompt, render_report
from pbem.statejson import state_json
from pbem.store import Database

EXIT_REFUSED = 1
EXIT_ERROR = 2

app = typer.Typer(
    name="pbem",
    help="Play-by-email moderator for Imperial 2030: the game master's tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
game_app = typer.Typer(help="Create and list games.", no_args_is_help=True, pretty_exceptions_show_locals=False)
app.add_typer(game_app, name="game")


# --- global options and error handling ------------------------------------------------------


@dataclass
class Options:
    """The global options, resolved lazily: a command that needs no database opens none."""

    database: str | None = None
    config: Path | None = None
    _moderator: Moderator | None = field(default=None, repr=False)

    def moderator(self) -> Moderator:
        if self._moderator is None:
            self._moderator = Moderator(Database(database_url(self.database, self.config)))
        return self._moderator

    def close(self) -> None:
        if self._moderator is not None:
            self._moderator.db.dispose()


@app.callback()
def main_options(
    ctx: typer.Context,
    database: Annotated[
        str | None,
        typer.Option("--database", metavar="URL", show_default=False,
                     help="Database URL, e.g. sqlite:///./pbem.db or postgresql+psycopg://user@host/db "
                          "[default: $PBEM_DATABASE_URL, else [database] url of the config file, "
                          "else sqlite:///./pbem.db]"),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", show_default=False,
                     help="TOML configuration file [default: $PBEM_CONFIG]"),
    ] = None,
) -> None:
    options = Options(database, config)
    ctx.obj = options
    ctx.call_on_close(options.close)


F = TypeVar("F", bound=Callable[..., Any])


def handled(command: F) -> F:
    """Print the moderator layer's errors as one clear line on stderr and exit 2, without a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (PbemError, EngineError) as exc:
            fail(str(exc))

    return wrapper  # type: ignore[return-value]


def fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_ERROR)


def options_of(ctx: typer.Context) -> Options:
    obj = ctx.find_object(Options)
    return obj if obj is not None else Options()


# --- parsing the game master's arguments -------------------------------------------------------


def parse_player(text: str) -> tuple[str, str]:
    name, sep, email = text.partition(":")
    if not sep or not name.strip() or not email.strip():
        raise BadSetup(f"--player must be NAME:EMAIL (e.g. ann:ann@example.org), not {text!r}")
    return name.strip(), email.strip()


def parse_deal(text: str) -> tuple[str, str]:
    nation, sep, player = text.partition("=")
    if not sep or not nation.strip() or not player.strip():
        raise BadSetup(f"--deal must be NATION=PLAYER (e.g. russia=ann), not {text!r}")
    return nation.strip(), player.strip()


# --- rendering ----------------------------------------------------------------------------------


def echo(text: str = "") -> None:
    typer.echo(text)


def money(amount: int) -> str:
    return f"{amount}m"


def option_lines(board: Board, decision: Decision, indent: str = "    ") -> list[str]:
    lines = []
    for option in decision.options:
        detail = []
        if option.steps is not None and option.steps:
            detail.append(f"{option.steps} space" + ("s" if option.steps != 1 else ""))
        detail.append(f"cost {option.cost}")
        lines.append(f"{indent}{format_action(board, option.action):<34} ({', '.join(detail)})")
    if decision.limit > 1:
        lines.append(f"{indent}(up to {decision.limit} of these may be combined in one order)")
    if decision.default is not None:
        lines.append(f"{indent}default if no answer: {format_action(board, decision.default)}")
    return lines


def pending_lines(state: GameState) -> list[str]:
    if state.finished:
        return ["The game is over."]
    decisions = pending(state)
    lines = []
    for decision in decisions:
        where = "out of turn" if decision.out_of_turn else "in turn"
        lines.append(f"Waiting for {describe_decision(state.board, decision)}, {where}; options:")
        lines.extend(option_lines(state.board, decision))
    return lines


def names(board: Board, ids: list[str] | tuple[str, ...]) -> str:
    return ", ".join(board.name(i) for i in ids) or "-"


def bonds_text(board: Board, bonds: Any) -> str:
    return ", ".join(f"{board.name(b.nation)} {b.value}" for b in sorted(bonds)) or "-"


def units_text(board: Board, units: dict[str, int]) -> str:
    return ", ".join(f"{board.name(r)}" + (f" x{c}" if c > 1 else "") for r, c in units.items() if c)


def summary_lines(name: str, state: GameState) -> list[str]:
    """A short human summary of the whole position."""
    board = state.board
    if state.finished:
        where = "finished"
    elif state.turn is not None:
        where = f"round {state.round}, {board.name(state.turn.nation)} to play"
    else:
        where = "setting up (expert bond selection)"
    lines = [f"Game {name}: version {state.version}, {where}."]
    lines.append("Nations:")
    for nation in board.nation_ids:
        n = state.nations[nation]
        rondel = board.name(n.rondel) if n.rondel else "-"
        lines.append(f"  {board.name(nation):<7} government {n.government or '-':<8} treasury {n.treasury:>3}  "
                     f"power {n.power:>2}  rondel {rondel:<10} factories {names(board, n.factories)}")
        extra = []
        if n.flags:
            extra.append(f"flags {names(board, n.flags)}")
        if units_text(board, n.armies):
            extra.append(f"armies {units_text(board, n.armies)}")
        if units_text(board, n.fleets):
            extra.append(f"fleets {units_text(board, n.fleets)}")
        if units_text(board, n.hostile):
            extra.append(f"hostile {units_text(board, n.hostile)}")
        if extra:
            lines.append("          " + "; ".join(extra))
    lines.append("Players:")
    data = state_json(name, state)["players"]
    for player in state.players.values():
        notes = []
        if player.name == state.investor_card:
            notes.append("investor card")
        if data[player.name]["swiss_bank"]:
            notes.append("Swiss bank")
        if data[player.name]["score"] is not None:
            notes.append(f"score {data[player.name]['score']}")
        note = f"  [{', '.join(notes)}]" if notes else ""
        lines.append(f"  {player.name:<8} cash {player.cash:>3}  bonds {bonds_text(board, player.bonds)}{note}")
    lines.extend(pending_lines(state))
    return lines


def new_game_lines(game: NewGame) -> list[str]:
    state = game.state
    board = state.board
    setup = state.setup
    variants = ", ".join(sorted(v.value for v in setup.variants)) or "standard"
    lines = [f"Game {game.name} created: {len(setup.players)} players, seed {setup.seed}, rules: {variants}."]
    lines.append("Seats (clockwise):")
    cards = game.flag_cards
    for index, seat in enumerate(setup.players, start=1):
        player = state.players[seat.name]
        lines.append(f"  {index}. {seat.name} <{seat.email}>")
        if cards.get(seat.name):
            lines.append(f"     flag cards: {names(board, cards[seat.name])}")
        lines.append(f"     cash {player.cash}; bonds: {bonds_text(board, player.bonds)}")
    governments = [f"{board.name(n)} {state.nations[n].government}" for n in board.nation_ids
                   if state.nations[n].government]
    lines.append("Governments: " + ("; ".join(governments) or "none yet"))
    lines.append("Treasuries: " + "; ".join(f"{board.name(n)} {state.nations[n].treasury}" for n in board.nation_ids))
    lines.append(f"Investor card: {state.investor_card or 'none'}")
    lines.extend(pending_lines(state))
    return lines


def refusal_lines(refusal: Refusal | Any) -> list[str]:
    """A refused line, its reason, suggestions and what is legal now.

    Also takes an order-layer ``OrderError`` (forced orders), which has no
    lines left over and names nobody the game waits for.
    """
    where = f"line {refusal.line_number}: {refusal.line}" if refusal.line_number is not None else "the message"
    lines = [f"REFUSED {where}", f"  reason: {refusal.reason}"]
    if refusal.suggestions:
        lines.append(f"  did you mean: {', '.join(refusal.suggestions)}")
    if refusal.legal:
        lines.append("  legal now:")
        lines.extend(f"    {text}" for text in refusal.legal)
    not_applied = getattr(refusal, "not_applied", ())
    if not_applied:
        lines.append("  not applied:")
        lines.extend(f"    line {number}: {text}" for number, text in not_applied)
    waiting_for = getattr(refusal, "waiting_for", ())
    if waiting_for:
        lines.append(f"  the game waits for: {'; '.join(waiting_for)}")
    return lines


def query_lines(name: str, result: SubmitResult, query: Query) -> list[str]:
    header = f"line {query.line_number}: {query.line}"
    if query.kind == "status":
        return [header, *("  " + line for line in summary_lines(name, result.state))]
    if query.kind == "options":
        legal = legal_orders(result.state, result.player)
        return [header, *(f"  {text}" for text in legal)] if legal else [header, "  nothing to decide now"]
    return [header, f"  ({query.kind.upper()} is answered in mail reports; not available in the CLI yet)"]


def applied_lines(applied: tuple[AppliedLine, ...]) -> list[str]:
    lines = []
    for item in applied:
        lines.append("end of message: DONE" if item.implicit else f"line {item.line_number}: {item.line}")
        lines.extend(f"  {sentence}" for sentence in (item.narration or ("(no effect)",)))
    return lines


def waiting_lines(waiting: Waiting) -> list[str]:
    """'waiting for bob (…) — these lines will be applied once answered:' and the lines."""
    return [waiting.text + (":" if waiting.lines else "."),
            *(f"    line {number}: {text}" for number, text in waiting.lines)]


def resumed_lines(name: str, result: SubmitResult, resumed: Resumed) -> list[str]:
    lines = [f"Waiting orders of {resumed.player} resumed:"]
    lines.extend("  " + line for line in applied_lines(resumed.applied))
    if resumed.refusal is not None:
        lines.extend("  " + line for line in refusal_lines(resumed.refusal))
        lines.append(f"  {resumed.player} is asked to continue.")
    if resumed.waiting is not None:
        lines.extend("  " + line for line in waiting_lines(resumed.waiting))
    return lines


def submit_lines(name: str, result: SubmitResult) -> list[str]:
    lines = [f"Game {name}, orders of {result.player}: version {result.version_before} -> {result.version}."]
    lines.extend(applied_lines(result.applied))
    for query in result.queries:
        lines.extend(query_lines(name, result, query))
    if result.refusal is not None:
        lines.extend(refusal_lines(result.refusal))
    if result.waiting is not None:
        lines.extend(waiting_lines(result.waiting))
    if result.ignored:
        lines.append("Not read as orders (greetings and thanks): "
                     + "; ".join(f"line {line.number}: {line.text}" for line in result.ignored) + ".")
    for resumed in result.resumed:
        lines.extend(resumed_lines(name, result, resumed))
    lines.extend(pending_lines(result.state))
    return lines


# --- commands ---------------------------------------------------------------------------------


@game_app.command("new")
@handled
def game_new(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Name of the new game (letters, digits, '.', '_', '-').")],
    player: Annotated[
        list[str],
        typer.Option("--player", metavar="NAME:EMAIL", show_default=False,
                     help="A player, repeated 2 to 6 times; the order is the seating order."),
    ],
    deal: Annotated[
        list[str] | None,
        typer.Option("--deal", metavar="NATION=PLAYER", show_default=False,
                     help="Fix a flag card (repeatable); cards not fixed are dealt from the seed."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, show_default=False, help="Seed of the deal [default: random, stored]."),
    ] = None,
    variant: Annotated[
        list[Variant] | None,
        typer.Option("--variant", show_default=False, help="Rule variant (repeatable)."),
    ] = None,
    start_player: Annotated[
        str | None,
        typer.Option("--start-player", metavar="NAME", show_default=False,
                     help="Expert variant: who is offered the first bond [default: drawn from the seed]."),
    ] = None,
) -> None:
    """Create a game and print its setup: seats, flag cards, governments, cash and who decides first."""
    players = [parse_player(p) for p in player]
    fixed = [parse_deal(d) for d in deal or ()]
    options = options_of(ctx)
    config = load_config(options.config)
    if not config.mail_enabled:  # no [moderator] and [smtp]: a game played through the CLI
        game = options.moderator().create_game(name, players, fixed, seed, variant or (), start_player)
        for line in new_game_lines(game):
            echo(line)
        return
    from pbem.mailflow import create_game_with_mail

    moderator = options.moderator()
    setup = moderator.make_setup(name, players, fixed, seed, variant or (), start_player)
    game, queued = create_game_with_mail(moderator, config, name, setup)
    for line in new_game_lines(game):
        echo(line)
    welcomed = [q.recipient for q in queued if q.purpose == "welcome"]
    echo(f"Mail: welcome mails with each seat's reply token queued for {', '.join(welcomed)}"
         f" ({len(queued)} mail(s)); `pbem run` or `pbem poll --once` delivers them.")


@game_app.command("list")
@handled
def game_list(ctx: typer.Context) -> None:
    """List the games in the database."""
    games = options_of(ctx).moderator().list_games()
    if not games:
        echo("No games yet. Create one with: pbem game new NAME --player NAME:EMAIL --player NAME:EMAIL")
        return
    width = max(4, *(len(g.name) for g in games))
    echo(f"{'NAME':<{width}}  {'STATUS':<8}  {'VERSION':>7}  PLAYERS")
    for g in games:
        echo(f"{g.name:<{width}}  {g.status:<8}  {g.version:>7}  {', '.join(g.players)}")


@app.command("order")
@handled
def order(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    text: Annotated[str, typer.Argument(help="The orders, one per line (or ';'-separated); '-' reads stdin.")],
    as_player: Annotated[str, typer.Option("--as", metavar="PLAYER", help="The player giving the orders.")],
) -> None:
    """Apply a player's orders, as if they came by mail; print what happened and what is pending next."""
    from pbem.gamemaster import GamePaused, refuse_if_paused

    if text == "-":
        text = typer.get_text_stream("stdin").read()
    try:
        result = options_of(ctx).moderator().submit(name, as_player, text, guard=refuse_if_paused)
    except GamePaused:
        echo(f"Game {name} is paused by the game master: nothing was applied. Orders are taken again after "
             f"`pbem resume {name}`; the game master's `pbem force` works while it is paused.")
        raise typer.Exit(EXIT_REFUSED) from None
    for line in submit_lines(name, result):
        echo(line)
    if result.refusal is not None:
        raise typer.Exit(EXIT_REFUSED)


@app.command("state")
@handled
def state(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole state as JSON (docs/state-json.md).")] = False,
) -> None:
    """Print where a game stands: a short summary, or the full state as JSON."""
    current = options_of(ctx).moderator().state(name)
    if as_json:
        echo(json.dumps(state_json(name, current), indent=2, ensure_ascii=False))
    else:
        for line in summary_lines(name, current):
            echo(line)


# --- reports ------------------------------------------------------------------------------------


def game_history(moderator: Moderator, name: str, since: int | None) -> tuple[GameState, list[Event], int]:
    """The game now, and the events of its log from move ``since`` on (with the setup's when 0).

    Without ``since``: the events of the last message, i.e. of the last run of
    log entries by one player (what every player's last report told), or the
    setup's while nothing has been played.
    """
    moderator.state(name)  # unknown game, unreachable database: the moderator's clear errors
    with moderator.db.transaction() as session:
        game = store.find_game(session, name)
        setup = store.game_setup(game)
        log = store.load_log(session, game)
    with_setup = since == 0 if since is not None else not log
    if since is None:
        since = len(log)
        while since > 0 and log[since - 1].player == log[-1].player:
            since -= 1
    if since > len(log):
        raise BadSetup(f"--since {since}: game {name!r} has only {len(log)} moves")
    state, setup_events = new_game(moderator.board, setup)
    events: list[Event] = list(setup_events) if with_setup else []
    for entry in log:
        state, new = apply(state, entry.player, entry.action)
        if entry.version >= since:
            events.extend(new)
    return state, events, since


def resolve_player(state: GameState, name: str, text: str) -> str:
    """A player of the game by name, ignoring case."""
    for player in state.seating:
        if player.casefold() == text.strip().casefold():
            return player
    raise UnknownPlayer(f"{text!r} is not a player of game {name!r}; players: {', '.join(state.seating)}")


@app.command("board")
@handled
def board(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """Print the ASCII world board of a game, as players get it by mail."""
    current = options_of(ctx).moderator().state(name)
    typer.echo(render_board(current, game=name), nl=False)


@app.command("report")
@handled
def report(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    for_player: Annotated[str, typer.Option("--for", metavar="PLAYER", help="The player whose report to print.")],
    since: Annotated[
        int | None,
        typer.Option("--since", metavar="MOVE", min=0, show_default=False,
                     help="Tell what happened from this move on (0: from the setup) "
                          "[default: the last message's moves]"),
    ] = None,
    open_cash: Annotated[
        bool, typer.Option("--open-cash", help="Show every player's cash (the game option open_cash).")
    ] = False,
    with_board: Annotated[
        bool, typer.Option("--board/--no-board", help="Include the world board in the report.")
    ] = True,
    deadline: Annotated[
        str | None,
        typer.Option("--deadline", metavar="TEXT", show_default=False,
                     help="Deadline shown in the prompt, e.g. 'Friday 2030-05-03 18:00 UTC'."),
    ] = None,
) -> None:
    """Print a player's turn report, and the prompt when that player must decide, as mailed."""
    current, events, _ = game_history(options_of(ctx).moderator(), name, since)
    player = resolve_player(current, name, for_player)
    typer.echo(render_report(current, player, events, game=name, open_cash=open_cash, board=with_board), nl=False)
    prompt = render_prompt(current, player, game=name, deadline=deadline)
    if prompt is not None:
        typer.echo()
        typer.echo(prompt, nl=False)


# --- the game master's commands: game show, force, undo, replace, pause, resume, resend, deadlines tick ---
# (pbem.gamemaster and pbem.deadlines; every command is one transaction that also queues the mails it causes)

deadlines_app = typer.Typer(help="Deadlines of pending decisions: reminders, passive defaults, alerts.",
                            no_args_is_help=True, pretty_exceptions_show_locals=False)
app.add_typer(deadlines_app, name="deadlines")


def gm_mail(ctx: typer.Context) -> Any:
    """The mail settings of the game master's commands: [moderator] address and game_master of the config."""
    from pbem.config import load_config
    from pbem.gamemaster import MailContext

    return MailContext.from_config(load_config(options_of(ctx).config))


def mails_line(mail: Any, count: int) -> list[str]:
    """"Mails queued: N." where mail is configured; nothing at all where it is not (nothing was queued)."""
    return [f"Mails queued: {count}."] if mail.moderator_address else []


def gm_when(moment: Any) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment is not None else "-"


@game_app.command("show")
@handled
def game_show_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """Show a game for the game master: seats, whose turn, deadlines, waiting lines, last moves, outbox."""
    from pbem.gamemaster import game_show

    view = game_show(options_of(ctx).moderator().db, name)
    echo(f"Game {view.name}: {view.status}{', PAUSED' if view.paused else ''}, version {view.version}, "
         f"created {gm_when(view.created)}.")
    echo(view.turn)
    echo("Seats (clockwise):")
    for seat in view.seats:
        governs = f"  governs {', '.join(seat.governs)}" if seat.governs else ""
        echo(f"  {seat.seat}. {seat.name} <{seat.email}>{governs}{'  [token]' if seat.token else ''}")
    if view.pending:
        echo("Pending:")
    for p in view.pending:
        echo(f"  {p.player}: {p.what} ({p.kind}, {'out of turn' if p.out_of_turn else 'in turn'})")
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
    hours = ", ".join(f"{kind} {value:g}h" for kind, value in view.settings.deadline_hours.items())
    reminders = ", ".join(f"{h:g}h" for h in view.settings.reminder_hours)
    echo(f"Deadlines: {hours}; reminders {reminders} before.")


@app.command("force")
@handled
def force_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    text: Annotated[str, typer.Argument(help="The orders, one per line (or ';'-separated); '-' reads stdin.")],
    as_player: Annotated[str, typer.Option("--as", metavar="PLAYER", help="The player to give the orders for.")],
) -> None:
    """Give orders for a player (the game master steps in); everyone's report says so."""
    from pbem.gamemaster import force

    if text == "-":
        text = typer.get_text_stream("stdin").read()
    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = force(moderator.db, name, as_player, text, mail=mail, board=moderator.board)
    played = done.played
    echo(f"Game {name}, orders for {played.player} given by the game master: "
         f"version {played.version_before} -> {played.version}.")
    for item in played.applied:
        head = "end of message: DONE" if item.implicit else f"line {item.line.number}: {item.line.text}"
        echo(head if item.player == played.player else f"{item.player} (waiting lines): {head}")
        for sentence in narrate(moderator.board, item.events) or ["(no effect)"]:
            echo(f"  {sentence}")
    if played.refusal is not None:
        for line in refusal_lines(played.refusal):
            echo(line)
    for player, error in played.resumed_refusals:
        echo(f"Waiting orders of {player}:")
        for line in refusal_lines(error):
            echo(f"  {line}")
    for line in mails_line(mail, done.mailed) + pending_lines(played.state):
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
    from pbem.gamemaster import undo

    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = undo(moderator.db, name, mail=mail, board=moderator.board)
    echo(f"Game {name}: undid move {done.entry.version + 1} ({done.entry.player}: {done.order}); "
         f"back at version {done.version}.")
    for player, lines in done.dropped.items():
        echo(f"Dropped waiting lines of {player}: " + ("; ".join(t for _, t in lines) or "the end of a message"))
    for line in mails_line(mail, done.mailed) + pending_lines(done.state):
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
    from pbem.gamemaster import replace

    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = replace(moderator.db, name, old, new, email, mail=mail, board=moderator.board)
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
    from pbem.gamemaster import pause

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
    from pbem.gamemaster import resume

    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    done = resume(moderator.db, name, mail=mail, board=moderator.board)
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
        typer.Option("--to", metavar="PLAYER", show_default=False, help="Only this player [default: everyone]."),
    ] = None,
) -> None:
    """Queue the current report (and the prompt, for a deciding player) again."""
    from pbem.gamemaster import resend

    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    if not mail.moderator_address:
        fail("no mail is configured: nothing can be sent. Give a configuration with [moderator] address and [smtp] "
             "(pbem --config FILE resend ...); every seat's mail then carries its reply token.")
    done = resend(moderator.db, name, to, mail=mail, board=moderator.board)
    for player, kind in done.mails:
        echo(f"Queued the {kind} for {player} again.")
    echo(f"Mails queued: {len(done.mails)}.")


@deadlines_app.command("tick")
@handled
def deadlines_tick(ctx: typer.Context) -> None:
    """Send due reminders, apply passive defaults of expired decisions, alert the game master (once)."""
    from pbem.deadlines import tick

    moderator = options_of(ctx).moderator()
    mail = gm_mail(ctx)
    report = tick(moderator.db, mail_domain=mail.domain, moderator_address=mail.moderator_address,
                  game_master=mail.game_master, board=moderator.board)
    for line in report.lines():
        echo(line)
    if report.errors:
        raise typer.Exit(EXIT_ERROR)


from pbem.mailflow.commands import register as _register_mail_commands  # noqa: E402

_register_mail_commands(app)  # pbem run, pbem poll --once, pbem check


# --- the embedded demo: pbem mailhub, pbem bot, pbem demo, pbem mail reply ------------------------------
# (pbem.mailhub, pbem.bots, pbem.demo: a mail hub on loopback, bot players, a whole game by email)

mail_app = typer.Typer(help="Mail from the command line: answer a demo game's prompt as a player.",
                       no_args_is_help=True, pretty_exceptions_show_locals=False)
app.add_typer(mail_app, name="mail")


def parse_hostport(text: str, what: str = "--smtp") -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadSetup(f"{what} must be HOST:PORT (e.g. 127.0.0.1:2525), not {text!r}")
    return host.strip("[]"), int(port)


@app.command("mailhub")
@handled
def mailhub_command(
    root: Annotated[Path, typer.Option("--root", metavar="DIR", help="Where the Maildirs go: DIR/<address>/.")],
    host: Annotated[str, typer.Option("--host", help="Loopback address to listen on (only loopback).")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="SMTP port (0: any free port).")] = 2525,
    fsync: Annotated[bool, typer.Option("--fsync/--no-fsync", help="Sync each delivered mail to disk.")] = True,
) -> None:
    """A local mail hub: SMTP in on loopback, each recipient's mail into a Maildir ROOT/<address>/."""
    import signal

    from pbem.mailhub import MailHub, MailHubError

    try:
        hub = MailHub(root, host, port, fsync=fsync)
        hub.start()
    except MailHubError as exc:
        fail(str(exc))
    echo(f"pbem mailhub: SMTP on {hub.host}:{hub.port}, delivering into {hub.root}/<address>/ "
         "(plus-addresses to their base address). Ctrl-C stops it.")

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        while hub.running:
            hub.wait_delivered(hub.delivered + 1, 1.0)
    except KeyboardInterrupt:
        pass
    finally:
        hub.stop()
    echo(f"pbem mailhub stopped; {hub.delivered} mail(s) delivered.")


@app.command("bot")
@handled
def bot_command(
    maildir: Annotated[Path, typer.Option("--maildir", metavar="DIR", help="The bot's Maildir (its mail arrives here).")],
    smtp: Annotated[str, typer.Option("--smtp", metavar="HOST:PORT", help="Where to send replies (the hub).")],
    address: Annotated[str, typer.Option("--address", metavar="ADDR", help="The bot's e-mail address.")],
    strategy: Annotated[str, typer.Option("--strategy", help="random or sensible.")] = "random",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bot's choices.")] = 0,
    once: Annotated[bool, typer.Option("--once", help="Answer what is there now and exit.")] = False,
) -> None:
    """A bot player: answers every prompt in its Maildir with a legal order, by SMTP; never answers reports."""
    import signal
    import threading

    from pbem.bots import STRATEGIES, BotPlayer

    if strategy not in STRATEGIES:
        raise BadSetup(f"--strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    bot = BotPlayer(address, maildir, parse_hostport(smtp), strategy=strategy, seed=seed)
    if once:
        try:
            sent = bot.step()
        finally:
            bot.close()
        echo(f"{bot.name}: {sent} repl{'y' if sent == 1 else 'ies'} sent.")
        return
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    echo(f"pbem bot {bot.name} <{bot.address}> ({strategy}, seed {seed}) reads {maildir}, replies via {smtp}.")
    try:
        bot.run(stop, idle=0.5)
    finally:
        bot.close()
    echo(f"{bot.name}: {bot.stats.replies} replies sent, {bot.stats.read} mails read.")


@app.command("demo")
@handled
def demo_command(
    players: Annotated[int, typer.Option("--players", min=2, max=6, help="Seats in the game (2 to 6).")] = 4,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the deal and of the bots.")] = 1,
    humans: Annotated[
        list[str] | None,
        typer.Option("--humans", metavar="NAME", show_default=False,
                     help="A seat for a person instead of a bot (repeatable, or NAME,NAME): they answer with "
                          "'pbem mail reply --dir DIR --as NAME' or a mail client pointed at the hub."),
    ] = None,
    directory: Annotated[
        Path | None,
        typer.Option("--dir", metavar="DIR", show_default=False,
                     help="Where the database, the mail and the config go (default: a new temporary directory)."),
    ] = None,
    strategy: Annotated[str, typer.Option("--strategy", help="The bots' strategy: random or sensible.")]
    = "sensible",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The hub's SMTP port (0: any free).")] = 0,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", metavar="SECONDS", show_default=False,
                     help="Give up after this long (default: 20 minutes; no limit with --humans)."),
    ] = None,
) -> None:
    """Play a whole game by email on this machine: mail hub, moderator and bots in one process."""
    import sys

    from pbem.bots import STRATEGIES
    from pbem.demo import DemoOptions, main_text

    if strategy not in STRATEGIES:
        raise BadSetup(f"--strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    names = tuple(n.strip() for text in humans or () for n in text.split(",") if n.strip())
    if len(names) > 6:
        raise BadSetup("at most 6 seats")
    options = DemoOptions(players=max(players, len(names)), seed=seed, humans=names, directory=directory,
                          strategy=strategy, port=port, timeout=timeout)
    try:
        result = main_text(options, sys.stdout)
    except ValueError as exc:
        fail(str(exc))
    if not result.finished:
        raise typer.Exit(EXIT_REFUSED)


@mail_app.command("reply")
@handled
def mail_reply_command(
    directory: Annotated[Path, typer.Option("--dir", metavar="DIR", help="The demo's directory.")],
    as_player: Annotated[str, typer.Option("--as", metavar="NAME", help="Whose seat answers.")],
    text: Annotated[
        str | None,
        typer.Argument(metavar="ORDERS", show_default=False,
                       help="The orders, one per line or ';'-separated ('-' reads stdin); "
                            "without them, the latest prompt is shown."),
    ] = None,
) -> None:
    """Answer the latest prompt of a seat of a demo game, through the demo's mail hub (like hitting Reply)."""
    import smtplib

    from pbem.bots.mailio import latest_mail, reply_message
    from pbem.demo import load_demo
    from pbem.mailhub import mailbox_name

    try:
        demo = load_demo(directory)
    except ValueError as exc:
        fail(str(exc))
    seat = next((p for p in demo["players"] if p["name"].casefold() == as_player.strip().casefold()), None)
    if seat is None:
        fail(f"{as_player!r} has no seat in the demo; seats: {', '.join(p['name'] for p in demo['players'])}")
    maildir = Path(demo["mail"]) / (mailbox_name(seat["address"]) or seat["address"])
    prompt = latest_mail(maildir, asking=True)
    if text is None:
        if prompt is None:
            echo(f"No prompt for {seat['name']} yet in {maildir}.")
            return
        echo(f"Latest prompt for {seat['name']} ({prompt.subject}):")
        echo(prompt.body.rstrip("\n"))
        return
    if text == "-":
        text = typer.get_text_stream("stdin").read()
    original = prompt or latest_mail(maildir, asking=False)
    if original is None or not original.reply_to:
        fail(f"no mail of the moderator in {maildir} to reply to yet")
    message = reply_message(original, seat["address"], text.replace(";", "\n"), from_name=seat["name"])
    try:
        with smtplib.SMTP(demo["smtp_host"], int(demo["smtp_port"]), local_hostname="localhost",
                          timeout=30) as smtp:
            smtp.send_message(message)
    except OSError as exc:
        fail(f"the demo's mail hub at {demo['smtp_host']}:{demo['smtp_port']} does not answer ({exc}); "
             "is pbem demo still running?")
    echo(f"Sent to the moderator as {seat['name']} <{seat['address']}>, in reply to \"{original.subject}\".")



def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
