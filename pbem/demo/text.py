"""What ``pbem demo`` prints on the terminal: one progress line, then the game's end, each seat's mail and
what the database weighs."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TextIO

from pbem.demo.game import Demo
from pbem.demo.results import DOMAIN, MODERATOR, DemoOptions, DemoResult, Progress, write_result
from pbem.languages import ENGLISH_NAME, SOURCE, Language
from pbem.mail.hub import mailbox_name

LINE_WIDTH = 78  # the progress line, as wide as a mail's line: it fits any terminal people read mail in


class ProgressLine:
    """One line updated in place on a terminal (``\\r``); on anything else a plain line per round.

    A line holds at most :data:`LINE_WIDTH` columns, so the terminal's line
    never wraps (a wrapped line cannot be rewritten in place): the round and
    move, the leader once anyone has scored (nobody "leads with 0 points"),
    the mails, and at the end "game over"; a leader's name too long for the
    line leaves out the mails, then the leader. Whom the game waits for is
    not on the line: it changes with every move among bots, and a person
    the game waits for is told in lines of their own (``_tell_humans``).
    """

    def __init__(self, out: TextIO, *, tty: bool | None = None, width: int = 12) -> None:
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.width = width
        self._last_round = -1
        self._last_text = ""

    def text(self, progress: Progress) -> str:
        share = progress.filled if progress.filled is not None else progress.power / max(1, progress.goal)
        filled = min(self.width, round(self.width * share))
        head = f"[{'#' * filled}{'-' * (self.width - filled)}] round {progress.round:>2}, move {progress.version:>4}"
        leader = f"{progress.leader} leads with {progress.power} {progress.unit}" if progress.power > 0 else ""
        end = "game over" if progress.finished else ""
        for parts in ([head, leader, f"{progress.mails} mails", end], [head, leader, end], [head, end]):
            text = " | ".join(part for part in parts if part)
            if len(text) <= LINE_WIDTH:
                return text
        return text[:LINE_WIDTH]

    def __call__(self, progress: Progress) -> None:
        text = self.text(progress)
        if self.tty:
            if text != self._last_text:
                self.out.write("\r" + text.ljust(len(self._last_text)))
                self.out.flush()
                self._last_text = text
        elif progress.round != self._last_round or progress.finished and not self._last_text.endswith("game over"):
            self.out.write(text + "\n")
            self.out.flush()
            self._last_round = progress.round
            self._last_text = text

    def done(self) -> None:
        if self.tty and self._last_text:
            self.out.write("\n")
            self.out.flush()


def seat_mailbox(directory: Path, address: str, human: bool) -> Path:
    """Where a seat's mail is after the demo: a bot moves each mail it read into ``.processed``."""
    box = directory / "mail" / address
    return box if human else box / ".processed"


def summary_lines(result: DemoResult) -> list[str]:
    lines: list[str] = []
    state = result.state
    if result.finished and state is not None:
        lines.append(f"Game {result.game} is over after {result.rounds} rounds and {state.version} moves "
                     f"({result.elapsed:.1f} s).")
        lines.extend(result.ending)
        if not _ranks_everyone(result.ending, [player for player, _ in result.scores]):
            lines.append("Final scores:")
            humans = {n for n, _, h in result.players if h}
            for rank, (player, score) in enumerate(result.scores, start=1):
                tag = " (human)" if player in humans else ""
                lines.append(f"  {rank}. {player:<10} {score:>4}{tag}")
    elif result.timed_out:
        lines.append(f"The demo stopped after {result.elapsed:.0f} s before the game ended.")
    lines.append(f"Mail: the moderator handled {result.messages} mails with orders and sent {result.outbox_sent}; "
                 f"the hub delivered {result.mails_delivered}.")
    lines.extend(weight_lines(result))
    if result.replay_matches is not None:
        lines.append("The final state equals the replay of the game's log."
                     if result.replay_matches else "WARNING: the final state differs from the replay of the log!")
    lines.append(f"Mailboxes (Maildir, one per address) to read: {result.directory / 'mail'}/")
    for name, address, human in result.players:
        where = "new mail stays here" if human else "a bot files what it read in .processed"
        lines.append(f"  {name:<10} {seat_mailbox(result.directory, address, human)}/ ({where})")
    lines.append(f"  moderator  {result.directory / 'mail' / MODERATOR / '.processed'}/ (every order it handled)")
    name, address, human = next((p for p in result.players if p[2]), result.players[0])
    lines.append(f"  e.g. {name}'s mail: mutt -f {seat_mailbox(result.directory, address, human)}/")
    lines.append(f"The game in the database: pbem --config {result.directory / 'pbem.toml'} game show {result.game}")
    return lines


def weight_lines(result: DemoResult) -> list[str]:
    """What the game weighed: each seat's mails and their bytes as delivered, and the database on disk."""
    lines = ["Each seat received:"] if result.players else []
    for name, address, _ in result.players:
        box = mailbox_name(address) or address
        lines.append(f"  {name:<10} {result.delivered_to.get(box, 0):>5} mails, "
                     f"{_megabytes(result.delivered_bytes.get(box, 0))}")
    if result.database_bytes:
        lines.append(f"The database: {_megabytes(result.database_bytes)} on disk for this game.")
    if result.kept_bytes:
        lines.append(f"  Kept for good once sent mail loses its texts (keep_sent_mail_days): "
                     f"{_megabytes(result.kept_bytes)}.")
    return lines


def _megabytes(count: int) -> str:
    return f"{count / 1_000_000:.1f} MB" if count >= 100_000 else f"{count / 1000:.0f} KB"


def _ranks_everyone(ending: tuple[str, ...], players: list[str]) -> bool:
    """Whether the game's own ending names every player: a score sheet (Eight-Minute Empire's, with its
    arithmetic), after which the demo's plain list of the same scores would only repeat it."""
    words = set(re.findall(r"[\w.+-]+", " ".join(ending)))
    return bool(players) and all(player in words for player in players)


def languages_told(languages: dict[str, Language]) -> str:
    """The seats' languages for the demo's first line: nothing when all read English (the line as it always
    was), ``, mail in Russian`` when all read one, else each seat's."""
    told = set(languages.values())
    if told == {SOURCE}:
        return ""
    if len(told) == 1:
        return f", mail in {ENGLISH_NAME[told.pop()]}"
    return ", mail in " + ", ".join(f"{ENGLISH_NAME[language]} ({name})" for name, language in languages.items())


def main_text(options: DemoOptions, out: TextIO) -> DemoResult:
    """The demo as ``pbem demo`` prints it."""
    line = ProgressLine(out)
    demo = Demo(options, out=out, progress=line)
    humans = [n for n, _, h in demo.players if h]
    out.write(f"pbem demo: {len(demo.players)} players ({', '.join(n for n, _, _ in demo.players)}), seed "
              f"{options.seed}, strategy {options.strategy}{languages_told(demo.languages)}; files in "
              f"{demo.directory}\n")
    out.flush()
    try:
        demo.setup()
        assert demo.hub is not None
        out.write(f"Mail hub: SMTP on 127.0.0.1:{demo.hub.port}, Maildirs under {demo.mail_root}/\n")
        if humans:
            out.write("People play with: pbem mail reply --dir " + str(demo.directory) + " --as NAME [\"ORDERS\"]\n"
                      "(or any mail client: SMTP 127.0.0.1:" + str(demo.hub.port) + ", reading the Maildir of "
                      "NAME@" + DOMAIN + ")\n")
        out.flush()
        demo.start()
        finished = demo.wait()
        line.done()
        demo.halt()
        result = demo.result(timed_out=not finished)
    except KeyboardInterrupt:
        line.done()
        out.write("Interrupted.\n")
        demo.halt()
        result = demo.result(timed_out=True)
    finally:
        demo.stop()
    write_result(result)
    for text in summary_lines(result):
        out.write(text + "\n")
    out.flush()
    return result


