"""The embedded demo: pbem mailhub, pbem bot, pbem demo, pbem mail reply."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from pbem.bots import BotPlayer
from pbem.bots.mailio import latest_mail, reply_message
from pbem.cli.base import EXIT_REFUSED, app, echo, fail, handled, parse_variant
from pbem.cli.style import PlainGroup
from pbem.demo import DemoOptions, bot_languages, load_demo, main_text
from pbem.errors import BadSetup
from pbem.games import DEFAULT_KIND, kind_named
from pbem.languages import Language, language_named
from pbem.mail.hub import MailHub, MailHubError, mailbox_name
from pbem.store.mailprefs import NEW_GAME_MAIL, MailMode

# --- the embedded demo: pbem mailhub, pbem bot, pbem demo, pbem mail reply ------------------------------
# (pbem.mail.hub, pbem.bots, pbem.demo: a mail hub on loopback, bot players, a whole game by email)

mail_app = typer.Typer(help="Mail from the command line: answer a demo game's prompt as a player.", cls=PlainGroup,
                       no_args_is_help=True, pretty_exceptions_show_locals=False)
app.add_typer(mail_app, name="mail")


def parse_hostport(text: str, what: str = "--smtp") -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadSetup(f"{what} must be HOST:PORT (e.g. 127.0.0.1:2525), not {text!r}")
    return host.strip("[]"), int(port)


def parse_languages(texts: Sequence[str]) -> tuple[Language, tuple[tuple[str, str], ...]]:
    """``--language`` as given: LANG for every seat (the last one given wins), NAME=LANG for one seat."""
    everyone = Language.EN
    seats: list[tuple[str, str]] = []
    for text in texts:
        seat, _, word = text.rpartition("=")
        chosen = language_named(word)
        if chosen is None or (text.count("=") and not seat.strip()):
            raise BadSetup(f"--language must be LANG or NAME=LANG, LANG one of "
                           f"{', '.join(lang.value for lang in Language)}; not {text!r}")
        if seat.strip():
            seats.append((seat.strip(), chosen.value))
        else:
            everyone = chosen
    return everyone, tuple(seats)


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

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    # before the hub says it is ready: a SIGTERM right after that line must stop it cleanly, not kill it
    signal.signal(signal.SIGTERM, stop)
    try:
        hub = MailHub(root, host, port, fsync=fsync)
        hub.start()
    except MailHubError as exc:
        fail(str(exc))
    try:
        echo(f"pbem mailhub: SMTP on {hub.host}:{hub.port}, delivering into {hub.root}/<address>/ "
             "(plus-addresses to their base address). Ctrl-C stops it.")
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
    kind: Annotated[str, typer.Option("--kind", metavar="KIND", help="The game the bot plays (`pbem kinds`).")]
    = DEFAULT_KIND,
    language: Annotated[str, typer.Option("--language", metavar="LANG",
                                          help="The language of the seat's mail: en, ru, pl, es or it; "
                                               "the bot reads it and answers in it.")] = "en",
) -> None:
    """A bot player: answers every prompt in its Maildir with a legal order, by SMTP; never answers reports."""
    import signal
    import threading

    game_kind = kind_named(kind)
    strategies = game_kind.bot.strategies
    if strategy not in strategies:
        raise BadSetup(f"--strategy must be one of {', '.join(strategies)}, not {strategy!r}")
    reads = language_named(language)
    if reads is None or reads not in bot_languages(game_kind.bot):
        raise BadSetup(f"--language {language!r}: {game_kind.info.title}'s bot reads "
                       + ", ".join(lang.value for lang in bot_languages(game_kind.bot)))
    bot = BotPlayer(address, maildir, parse_hostport(smtp), strategy=strategy, seed=seed, bot=game_kind.bot,
                    language=reads)
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
    players: Annotated[int, typer.Option("--players", min=2, max=6, help="Seats in the game (2 to 6 in Imperial 2030).")] = 4,
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
    kind: Annotated[str, typer.Option("--kind", metavar="KIND", help="The game to play (`pbem kinds`).")]
    = DEFAULT_KIND,
    variant: Annotated[
        list[str] | None,
        typer.Option("--variant", metavar="VARIANT", show_default=False,
                     help="A rule variant of the game, repeatable (`pbem kinds` lists them)."),
    ] = None,
    mail: Annotated[MailMode, typer.Option("--mail", metavar="MODE", case_sensitive=False,
                                           help="Every seat's mail: every, turn, round or daily.")] = NEW_GAME_MAIL,
    language: Annotated[
        list[str] | None,
        typer.Option("--language", metavar="[NAME=]LANG", show_default=False,
                     help="The language of every seat's mail, bots' and people's: en, ru, pl, es or it; "
                          "NAME=LANG for one seat (repeatable: --language ru --language bot2=pl). "
                          "The bots read and answer in their seat's language, and a seed plays the same game "
                          "in every language. Default: en."),
    ] = None,
) -> None:
    """Play a whole game by email on this machine: mail hub, moderator and bots in one process."""
    import sys

    game_kind = kind_named(kind)
    strategies = game_kind.bot.strategies
    if strategy not in strategies:
        raise BadSetup(f"--strategy must be one of {', '.join(strategies)}, not {strategy!r}")
    names = tuple(n.strip() for text in humans or () for n in text.split(",") if n.strip())
    if len(names) > game_kind.info.max_players:
        raise BadSetup(f"at most {game_kind.info.max_players} seats")
    variants = tuple(parse_variant(game_kind, v) for v in variant or ())
    everyone, seats = parse_languages(language or ())
    options = DemoOptions(players=max(players, len(names)), seed=seed, humans=names, directory=directory,
                          strategy=strategy, port=port, timeout=timeout, kind=game_kind.info.name, variants=variants,
                          mail=mail.value, language=everyone.value, languages=seats)
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
