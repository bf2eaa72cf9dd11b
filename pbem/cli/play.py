"""Playing and looking: game new/list, order (mailed to every seat with a mail configuration), state, board, report."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from pbem import store
from pbem.cli.base import (
    EXIT_REFUSED,
    app,
    echo,
    fail,
    game_app,
    handled,
    options_of,
    parse_deal,
    parse_player,
    parse_variant,
    player_language,
)
from pbem.cli.lines import submit_lines
from pbem.cli.master import gm_mail
from pbem.cli.masters import name_masters
from pbem.config import load_config
from pbem.errors import BadSetup, UnknownPlayer
from pbem.games import DEFAULT_KIND, KINDS, GameKind, kind_named
from pbem.games.kind import match_player
from pbem.languages import SOURCE, Language, language_named, speaking
from pbem.moderator.gamemaster import GamePaused, refuse_if_paused
from pbem.moderator.gamemaster import order as order_with_mail
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.games import Moderator
from pbem.render.picture import render_png
from pbem.store.mailprefs import NEW_GAME_MAIL, MailMode

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
                     help="Imperial 2030: fix a flag card (repeatable); cards not fixed are dealt from the seed."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, show_default=False,
                     help="Seed of the deal (default: a random one, stored with the game)."),
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option("--variant", metavar="VARIANT", show_default=False,
                     help="Rule variant, repeatable (each kind's variants: `pbem kinds`)."),
    ] = None,
    start_player: Annotated[
        str | None,
        typer.Option("--start-player", metavar="NAME", show_default=False,
                     help="Imperial 2030, expert variant: who is offered the first bond (default: drawn from the seed)."),
    ] = None,
    kind: Annotated[
        str, typer.Option("--kind", metavar="KIND", help="Which game: see `pbem kinds`.")
    ] = DEFAULT_KIND,
    age_order: Annotated[
        str | None,
        typer.Option("--age-order", metavar="NAME,NAME", show_default=False,
                     help="Eight-Minute Empire: the players youngest first, for ties (default: drawn from the "
                          "seed)."),
    ] = None,
    mail: Annotated[
        MailMode, typer.Option("--mail", metavar="MODE", case_sensitive=False,
                               help="How much mail a seat gets until it chooses for itself (MAIL in a reply): "
                                    "turn (a mail when it must decide, with everything since its last), every "
                                    "(a report after every move), round or daily (digests).")
    ] = NEW_GAME_MAIL,
    language: Annotated[
        str, typer.Option("--language", metavar="LANG",
                          help="The language of the game's mail (en, ru, pl, es, it) for the seats that name none "
                               "in --player NAME:EMAIL:LANG; a player changes theirs by mail (LANGUAGE RU).")
    ] = SOURCE.value,
    master: Annotated[
        list[str] | None,
        typer.Option("--master", metavar="EMAIL", show_default=False,
                     help="A game master (repeatable): they get a token by mail and run the game by mail "
                          "(docs/game-master.md).")
    ] = None,
) -> None:
    """Create a game of any kind (--kind) and print its setup: the seats, what was dealt, who decides first."""
    game_kind = kind_named(kind)  # an unknown kind is refused before anything else, naming the kinds there are
    players = [parse_player(p) for p in player]
    game_language = language_named(language)
    if game_language is None:
        raise BadSetup(f"--language {language!r} is no language; the languages: "
                       + ", ".join(lang.value for lang in Language))
    languages = {name: lang for (name, _), text in zip(players, player, strict=True)
                 if (lang := player_language(text)) is not None}
    fixed = [parse_deal(d) for d in deal or ()]
    variants = [parse_variant(game_kind, v) for v in variant or ()]
    own = {"age_order": tuple(n.strip() for n in age_order.split(",") if n.strip())} if age_order else {}
    options = options_of(ctx)
    config = load_config(options.config)
    if not config.mail_enabled:  # no [moderator] and [smtp]: a game played through the CLI
        game = options.moderator().create_game(name, players, fixed, seed, variants, start_player,
                                               kind=game_kind.info.name, options=own)
        for line in game_kind.new_game_lines(game):
            echo(line)
        name_masters(ctx, name, master or [])
        return

    moderator = options.moderator()
    setup = moderator.make_setup(name, players, fixed, seed, variants, start_player, kind=game_kind.info.name,
                                 options=own)
    game, queued = create_game_with_mail(moderator, config, name, setup, kind=game_kind.info.name, mail=mail,
                                         language=game_language, languages=languages)
    for line in game_kind.new_game_lines(game):
        echo(line)
    welcomed = [q.recipient for q in queued if q.purpose == "welcome"]
    echo(f"Mail: welcome mails with each seat's reply token queued for {', '.join(welcomed)}"
         f" ({len(queued)} mail(s)); `pbem run` or `pbem poll --once` delivers them.")
    name_masters(ctx, name, master or [])


@game_app.command("list")
@handled
def game_list(ctx: typer.Context) -> None:
    """List the games in the database."""
    games = options_of(ctx).moderator().list_games()
    if not games:
        echo("No games yet. Create one with: pbem game new NAME --player NAME:EMAIL --player NAME:EMAIL")
        return
    width = max(4, *(len(g.name) for g in games))
    kinds = max(4, *(len(g.kind) for g in games))
    echo(f"{'NAME':<{width}}  {'KIND':<{kinds}}  {'STATUS':<8}  {'MOVE':>7}  PLAYERS")
    for g in games:
        echo(f"{g.name:<{width}}  {g.kind:<{kinds}}  {g.status:<8}  {g.version:>7}  {', '.join(g.players)}")


@app.command("kinds")
@handled
def kinds_command() -> None:
    """List the games this moderator can run, with their player counts and variants."""
    width = max(len(name) for name in KINDS)
    for kind in KINDS.values():
        echo(f"{kind.info.name:<{width}}  {kind.info.title}, {kind.info.min_players}-{kind.info.max_players} players; "
             f"variants: {', '.join(kind.info.variants) or '-'}")


@app.command("order")
@handled
def order(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    text: Annotated[str, typer.Argument(help="The orders, one per line (or ';'-separated); '-' reads stdin.")],
    as_player: Annotated[str, typer.Option("--as", metavar="PLAYER", help="The player giving the orders.")],
) -> None:
    """Apply a player's orders, as if they came by mail; print what happened and what is pending next.

    With a mail configuration every seat is mailed what the orders did, as for a mailed order
    (``pbem.moderator.gamemaster.order``)."""
    if text == "-":
        text = typer.get_text_stream("stdin").read()
    mail, mailed = gm_mail(ctx), None
    try:
        if mail.moderator_address:
            done = order_with_mail(options_of(ctx).moderator().db, name, as_player, text, mail=mail)
            result, mailed = done.played.result, done.mailed
        else:
            result = options_of(ctx).moderator().submit(name, as_player, text, guard=refuse_if_paused)
    except GamePaused:
        echo(f"Game {name} is paused by the game master: nothing was applied. Orders are taken again after "
             f"`pbem resume {name}`; the game master's `pbem force` works while it is paused.")
        raise typer.Exit(EXIT_REFUSED) from None
    assert result is not None
    for line in submit_lines(options_of(ctx).moderator().kind_of(name), name, result):
        echo(line)
    if mailed is not None:
        echo(f"Mails queued: {mailed}.")
    if result.refusal is not None:
        raise typer.Exit(EXIT_REFUSED)


@app.command("state")
@handled
def state(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the state as JSON (docs/state-json.md).")] = False,
    for_player: Annotated[
        str | None,
        typer.Option("--for", metavar="PLAYER", show_default=False,
                     help="With --json: what this player may see (their own sealed answers too)."),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option("--everything", help="With --json: the whole stored state, hidden information and sealed "
                                          "answers included (for the game master only)."),
    ] = False,
) -> None:
    """Print where a game stands: a short summary, or the state as JSON."""
    moderator = options_of(ctx).moderator()
    current = moderator.state(name)
    game_kind = moderator.kind_of(name)
    if for_player is not None or everything:
        if not as_json:
            raise BadSetup("--for and --everything go with --json")
        if for_player is not None and everything:
            raise BadSetup("--for shows one player's view, --everything the whole state: choose one")
    if as_json:
        if everything:
            data = game_kind.state_to_json(current)
        else:
            viewer = resolve_player(game_kind, current, name, for_player) if for_player is not None else None
            data = game_kind.state_json(name, current, viewer)
        echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for line in game_kind.summary_lines(name, current):
            echo(line)


# --- reports ------------------------------------------------------------------------------------


def game_history(moderator: Moderator, name: str, since: int | None) -> tuple[Any, list[Any], int]:
    """The game now, and the events of its log from move ``since`` on (with the setup's when 0).

    Without ``since``: the events of the last message, i.e. of the last run of
    log entries by one player (what every player's last report told), or the
    setup's while nothing has been played.
    """
    moderator.state(name)  # unknown game, unreachable database: the moderator's clear errors
    kind = moderator.kind_of(name)
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
    state, setup_events = kind.new_game(setup)
    events: list[Any] = list(setup_events) if with_setup else []
    for entry in log:
        state, new = kind.apply(state, entry.player, entry.action)
        if entry.version >= since:
            events.extend(new)
    return state, events, since


def resolve_player(kind: GameKind, state: Any, name: str, text: str) -> str:
    """A player of the game by name, ignoring case."""
    seating = [seat.name for seat in kind.seats(kind.setup_of(state))]
    found = match_player(text, seating)
    if found is None:
        raise UnknownPlayer(f"{text!r} is not a player of game {name!r}; players: {', '.join(seating)}")
    return found


@app.command("board")
@handled
def board(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    png: Annotated[
        Path | None,
        typer.Option("--png", metavar="FILE", show_default=False, dir_okay=False,
                     help="Write the board as a PNG picture to FILE, whose name must end in '.png' (no other "
                          "format is written), instead of printing the text board."),
    ] = None,
) -> None:
    """Print the ASCII world board of a game, as players get it by mail; or draw it as a PNG picture."""
    if png is not None and png.suffix.lower() != ".png":  # PNG bytes in board.jpg would mislead every viewer
        fail(f"--png writes a PNG picture: give a FILE ending in .png, not {str(png)!r}")
    moderator = options_of(ctx).moderator()
    current = moderator.state(name)
    kind = moderator.kind_of(name)
    if png is None:
        typer.echo(kind.board_text(current, game=name), nl=False)
        return

    scene = kind.picture(current, game=name)
    data = render_png(scene)
    try:
        png.write_bytes(data)
    except OSError as exc:
        fail(f"cannot write {png}: {exc.strerror or exc}")
    width, height = scene.size
    echo(f"Wrote the board of {name} to {png}: a PNG of {width}x{height} pixels, {len(data)} bytes.")


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
                          "(default: the last message's moves)."),
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
    """Print a player's turn report, after the prompt when that player must decide, as mailed (in the player's
    language)."""
    moderator = options_of(ctx).moderator()
    current, events, _ = game_history(moderator, name, since)
    game_kind = moderator.kind_of(name)
    player = resolve_player(game_kind, current, name, for_player)
    with speaking(moderator.language_of(name, player)):
        prompt = game_kind.prompt(current, player, game=name, deadline=deadline)
        if prompt is not None:  # the question first, as in the mail (pbem.moderator.notify.turnmail)
            typer.echo(prompt)
        typer.echo(game_kind.report(current, player, events, game=name, open_cash=open_cash, board=with_board,
                                    with_prompt=prompt is not None), nl=False)
