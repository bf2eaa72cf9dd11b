"""Commands by mail to the moderator's own address, with no seat's token: a judge by mail (issue 31).

Anyone may ask ``LIST`` (the games waiting for players and those being played)
and ``SUMMARY <game>``; the answer names games, kinds, seats free and where a
game stands by its players' names, never an address. The commands that change
something are done only once the address that asked answers a confirmation
mail (double opt-in, as mailing lists do): its reply address carries a
one-time token (``pbem.store.judge``: 128 random bits, kept hashed, bound to
that address, used once, 48 hours). So a forged From makes the moderator write
one confirmation to the forged address, and nothing else happens:

* ``JOIN <game> [name]`` takes a seat of a game waiting for players (the name
  the others read; ``player<N>`` when none is given); the last seat taken
  creates the game (``pbem.moderator.gamemaster.newgame``, in the same
  transaction) and every seat gets its welcome mail with its reply token;
* ``OBSERVE <game>`` makes the address an observer of a running game;
* ``RESIGN <game>``, from a seat's address, gives the seat up: the game master
  is told, and anyone without a seat in the game may ``TAKEOVER <game> <seat>``
  (by the seat's player name or number), which is the game master's
  ``replace`` (``pbem.moderator.gamemaster.commands.replace_in``): the new
  player keeps the seat's name and gets its welcome with a new token, the old
  address a goodbye, the others a notice. Until then the player keeps the
  seat, its mail and its deadlines, and may still play;
* ``SET ADDRESS <new>`` moves every seat of the sender's address to ``new``
  (the same player: name, token and everything else stay) once both
  addresses answered their confirmation mail;
* ``CREATE <name> <kind> [players] [variants]`` opens a game waiting for
  players, for the addresses the host allows (``[judge]``,
  ``pbem.config.JudgeSettings``), optionally with ``ontime=N``: only players
  whose on-time record (``pbem.store.judge.on_time_record``, shown by
  ``SUMMARY``) is at least N per cent may join; ``START <game>``, from its creator (or the
  host's game master), starts it before it is full, with the players who
  joined if the game allows that many.

Every answer is a reply to a stranger, counted in the strangers' budgets by
the caller (``allowed``): a flood of commands gets no more mail than a flood of
mail without a token. The words are ``templates/core/judge.j2``'s.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, func, select

from pbem.config import Config, ModeratorSettings
from pbem.games import KINDS, GameKind, UnknownKind, kind_named, kind_of
from pbem.mail import InboundMessage
from pbem.moderator.gamemaster.commands import change_address_in, replace_in
from pbem.moderator.gamemaster.common import MailContext
from pbem.moderator.gamemaster.newgame import create_game_in
from pbem.moderator.gamemaster.playing import alert_addresses
from pbem.moderator.games import EMAIL, GAME_NAME, PLAYER_NAME, Moderator
from pbem.moderator.inbound.words import said
from pbem.moderator.mastermail.roster import name_master
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.observers import Sender, welcome_observer
from pbem.moderator.notify.subjects import MailSubject, game_subject, mail_subject, reply_subject
from pbem.store import GameRow, GameStatus, SeatRow, load_state, seats
from pbem.store.judge import (
    CONFIRMATION_HOURS,
    ConfirmationRow,
    OpenGameRow,
    add_join,
    ask_confirmation,
    close_open_game,
    create_open_game,
    is_stale_confirmation,
    joins_at,
    joins_of,
    on_time_record,
    open_game_named,
    open_games,
    set_vacant,
    take_confirmation,
    vacant_seats,
)
from pbem.store.masters import HOST
from pbem.store.observers import find_observer

TEMPLATE = "judge"  # templates/core/judge.j2
COMMANDS = ("LIST", "SUMMARY", "JOIN", "OBSERVE", "RESIGN", "TAKEOVER", "SET ADDRESS", "CREATE", "START")
SET_ADDRESS = "SET ADDRESS"
COMMAND_OUTCOME = "command"  # inbound outcome: a command answered (or refused)
CONFIRMED_OUTCOME = "confirmed"  # inbound outcome: a confirmation that did what it confirmed
LISTED_MAX = 100  # games of each sort in a LIST answer
COMMAND_SHOWN = 120  # characters of a command quoted back
DEFAULT_SEATS = 4  # CREATE without a number of players: four, or the nearest the game allows


@dataclass(frozen=True)
class Command:
    """The first line of a mail, when it is a command: its word (upper case) and the words after it."""

    word: str
    args: tuple[str, ...]

    @property
    def text(self) -> str:
        """As written, in one line and cut short: it is quoted in a subject and in the confirmation mail."""
        text = " ".join((self.word, *self.args))
        return text if len(text) <= COMMAND_SHOWN else text[:COMMAND_SHOWN - 3] + "..."


def read_command(body: str) -> Command | None:
    """The command on the mail's first line that says anything; None when that line is no command."""
    for line in body.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        word = words[0].upper()
        if word == "SET" and len(words) > 1 and words[1].upper() == "ADDRESS":
            return Command(SET_ADDRESS, tuple(words[2:]))
        return Command(word, tuple(words[1:])) if word in COMMANDS else None
    return None


class Refused(Exception):
    """A command that cannot be done: ``why`` and the values templates/core/judge.j2 words it with."""

    def __init__(self, why: str, **values: Any) -> None:
        super().__init__(why)
        self.why = why
        self.values = values


class Judge:
    """The answers to one stranger's mail, in the inbound handler's session (``pbem.moderator.inbound.handler``).

    ``allowed(address, purpose)`` says whether one more mail to that address (the sender, or the new address
    of ``SET ADDRESS``) fits the strangers' budgets (and counts it).
    """

    def __init__(self, session: Session, config: Config, identity: ModeratorSettings, moderator: Moderator,
                 compose: MailComposer, message: InboundMessage, tag: str, now: datetime,
                 allowed: Callable[[str, str], bool]) -> None:
        self.session = session
        self.config = config
        self.identity = identity
        self.moderator = moderator
        self.compose = compose
        self.message = message
        self.tag = tag
        self.now = now
        self.allowed = allowed
        self.sender = (message.sender or "").strip().lower()

    # --- commands --------------------------------------------------------------------------------

    def command(self, command: Command) -> tuple[str, str]:
        """Answer ``command``: (inbound outcome, reason for the record)."""
        try:
            if command.word == "LIST":
                return self.answer("list", **self.listing()), "LIST"
            game = command.args[0] if command.args else ""
            if command.word == "SUMMARY":
                return self.answer("summary", **self.summary(game)), f"SUMMARY {game}"
            if command.word == "JOIN":
                payload = self.joining(game, command.args[1] if len(command.args) > 1 else None)
            elif command.word == "OBSERVE":
                payload = self.observing(game)
            elif command.word == "RESIGN":
                payload = self.resigning(game)
            elif command.word == "TAKEOVER":
                payload = self.taking_over(game, command.args[1] if len(command.args) > 1 else "")
            elif command.word == SET_ADDRESS:
                payload = self.moving(game)
            elif command.word == "START":
                payload = self.starting(game)
            else:
                payload = self.creating(command.args)
        except Refused as refused:
            return self.answer("refused", why=refused.why, **refused.values), f"{command.word}: {refused.why}"
        if not self.ask(self.sender, command, payload, "confirm"):
            return COMMAND_OUTCOME, f"{command.text}: confirmation not sent (rate limit)"
        if command.word == SET_ADDRESS:  # the new address confirms too, in a mail of its own
            self.ask(str(payload["new"]), command, payload, "confirm_new")
        return COMMAND_OUTCOME, f"{command.text}: confirmation asked"

    def ask(self, address: str, command: Command, payload: dict[str, Any], what: str) -> bool:
        """The confirmation mail to ``address``, its reply address carrying a new one-time token, if the
        address's budget allows; whether it was queued."""
        if not self.allowed(address, "confirm"):
            return False
        token = ask_confirmation(self.session, address, command.word.lower(), payload, self.now)
        body = said(TEMPLATE, what=what, command=command.text, hours=CONFIRMATION_HOURS,
                    address=self.identity.address)
        own = address == self.sender
        self.compose.to_address(address, purpose="confirm", key=f"{what}:{self.tag}",
                                subject=mail_subject(MailSubject.CONFIRM, command=command.text), body=body,
                                reply_to_message=self.message if own else None, reply_token=token)
        return True

    def answer(self, what: str, **values: Any) -> str:
        """Reply to the sender, if its budget allows; the inbound outcome."""
        if self.allowed(self.sender, what):
            body = said(TEMPLATE, what=what, address=self.identity.address, commands=COMMANDS, **values)
            self.compose.to_address(self.sender, purpose=f"judge_{what}", key=f"judge:{self.tag}",
                                    subject=reply_subject(self.message.subject,
                                                          mail_subject(MailSubject.TO_MODERATOR)),
                                    body=body, reply_to_message=self.message)
        return COMMAND_OUTCOME

    def listing(self) -> dict[str, Any]:
        waiting = [{"name": g.name, "title": kind_of(g.kind).info.title, "seats": g.players,
                    "free": g.players - len(joins_of(self.session, g))} for g in open_games(self.session)]
        running = []
        for game in self.session.exec(select(GameRow).where(col(GameRow.status) == GameStatus.ACTIVE)
                                      .order_by(col(GameRow.name)).limit(LISTED_MAX)):
            kind = kind_of(game.kind)
            running.append({"name": game.name, "title": kind.info.title,
                            "turn": kind.turn_line(load_state(self.session, game)),
                            "vacant": len(vacant_seats(self.session, game))})
        return {"open": waiting[:LISTED_MAX], "running": running}

    def summary(self, name: str) -> dict[str, Any]:
        waiting = open_game_named(self.session, name)
        if waiting is not None:
            joined = joins_of(self.session, waiting)
            return {"open": True, "name": waiting.name, "title": kind_of(waiting.kind).info.title,
                    "seats": waiting.players, "free": waiting.players - len(joined),
                    "players": [self._record(j.name, j.email) for j in joined], "variants": waiting.variants,
                    "need": waiting.min_on_time}
        game = self._running(name)
        kind = kind_of(game.kind)
        return {"open": False, "name": game.name, "title": kind.info.title,
                "players": [self._record(s.name, s.email) for s in seats(self.session, game)],
                "turn": kind.turn_line(load_state(self.session, game)),
                "vacant": [s.name for s in vacant_seats(self.session, game)]}

    def _record(self, name: str, address: str) -> dict[str, Any]:
        """A player as SUMMARY shows them: the name and the on-time record, never the address."""
        record = on_time_record(self.session, address)
        return {"name": name, "own": record.own, "decisions": record.decisions}

    def _running(self, name: str) -> GameRow:
        game = self.session.exec(select(GameRow).where(col(GameRow.name) == name)).first() if name else None
        if game is None:
            raise Refused("no_game", name=name)
        return game

    def joining(self, name: str, player: str | None) -> dict[str, Any]:
        """A JOIN's checks before its confirmation is asked for (done again when it is answered)."""
        waiting = self._open(name)
        joined = joins_of(self.session, waiting)
        if player is None:
            taken = {j.name.lower() for j in joined}
            player = next(f"player{n}" for n in range(1, waiting.players + 2) if f"player{n}" not in taken)
        self._check_join(waiting, player)
        return {"game": waiting.name, "player": player}

    def _open(self, name: str) -> OpenGameRow:
        waiting = open_game_named(self.session, name) if name else None
        if waiting is None:
            self._running(name)  # no such game at all: refused so
            raise Refused("running", name=name)
        return waiting

    def _check_join(self, waiting: OpenGameRow, player: str) -> None:
        joined = joins_of(self.session, waiting)
        if any(j.email == self.sender for j in joined):
            raise Refused("joined_already", name=waiting.name)
        if len(joined) >= waiting.players:
            raise Refused("full", name=waiting.name)
        if not PLAYER_NAME.match(player):
            raise Refused("bad_player_name", name=player)
        if any(j.name.lower() == player.lower() for j in joined):
            raise Refused("name_taken", name=player)
        if waiting.min_on_time is not None:
            have = on_time_record(self.session, self.sender).per_cent
            if have is None or have < waiting.min_on_time:
                raise Refused("on_time", name=waiting.name, need=waiting.min_on_time, have=have)

    def observing(self, name: str) -> dict[str, Any]:
        game = self._running(name)
        if game.status != GameStatus.ACTIVE:
            raise Refused("no_game", name=name)
        if any(s.email.strip().lower() == self.sender for s in seats(self.session, game)):
            raise Refused("joined_already", name=game.name)
        return {"game": game.name}

    def _own_seat(self, game: GameRow) -> SeatRow:
        seat = next((s for s in seats(self.session, game) if s.email.strip().lower() == self.sender), None)
        if seat is None:
            raise Refused("no_seat", name=game.name)
        return seat

    def resigning(self, name: str) -> dict[str, Any]:
        game = self._active(name)
        return {"game": game.name, "player": self._own_seat(game).name}

    def _active(self, name: str) -> GameRow:
        game = self._running(name)
        if game.status != GameStatus.ACTIVE:
            raise Refused("no_game", name=name)
        return game

    def _vacant(self, game: GameRow, which: str) -> SeatRow:
        """A seat given up, by its player name or its number (1 is the first seat)."""
        given_up = vacant_seats(self.session, game)
        seat = next((s for s in given_up if s.name.lower() == which.lower() or str(s.seat + 1) == which), None)
        if seat is None:
            raise Refused("not_vacant", name=game.name, seat=which)
        return seat

    def taking_over(self, name: str, which: str) -> dict[str, Any]:
        game = self._active(name)
        if any(s.email.strip().lower() == self.sender for s in seats(self.session, game)):
            raise Refused("joined_already", name=game.name)
        return {"game": game.name, "player": self._vacant(game, which).name}

    def starting(self, name: str) -> dict[str, Any]:
        """START's checks: the game's creator (or the host's game master), and enough players for the game."""
        waiting = self._open(name)
        master = self.identity.game_master
        if self.sender != waiting.creator and not (master and self.sender == master.strip().lower()):
            raise Refused("not_master", name=waiting.name)
        info = kind_of(waiting.kind).info
        if len(joins_of(self.session, waiting)) < info.min_players:
            raise Refused("too_few", name=waiting.name, low=info.min_players)
        return {"game": waiting.name}

    def moving(self, new: str) -> dict[str, Any]:
        """SET ADDRESS's checks: an address, not the sender's, holding no seat in the sender's games."""
        new = new.strip().strip("<>").lower()
        if not EMAIL.match(new) or new == self.sender:
            raise Refused("bad_address", name=new)
        games = self._games_of(self.sender)
        if not games and not joins_at(self.session, self.sender):
            raise Refused("no_seats")
        for game in games:
            if any(s.email.strip().lower() == new for s in seats(self.session, game)):
                raise Refused("joined_already", name=game.name)
        return {"old": self.sender, "new": new, "pair": secrets.token_hex(8)}

    def _games_of(self, address: str) -> list[GameRow]:
        """The running games where ``address`` holds a seat."""
        return list(self.session.exec(select(GameRow).join(SeatRow, col(SeatRow.game_id) == col(GameRow.id))
                                      .where(col(GameRow.status) == GameStatus.ACTIVE,
                                             func.lower(SeatRow.email) == address).order_by(col(GameRow.name))))

    def creating(self, args: tuple[str, ...]) -> dict[str, Any]:
        """A CREATE's checks: who may, the name free, the kind, the number of players, the variants."""
        if not self.config.judge.may_create(self.sender, self.identity.game_master):
            raise Refused("not_creator")
        if len(args) < 2:
            raise Refused("unknown", commands=COMMANDS)
        name, kind_name, rest = args[0], args[1], list(args[2:])
        if not GAME_NAME.match(name):
            raise Refused("bad_name", name=name)
        if open_game_named(self.session, name) is not None or self.session.exec(
                select(GameRow.id).where(col(GameRow.name) == name)).first() is not None:
            raise Refused("name_taken", name=name)
        try:
            kind: GameKind = kind_named(kind_name)
        except UnknownKind:
            raise Refused("no_kind", name=kind_name, kinds=list(KINDS)) from None
        info = kind.info
        players = max(info.min_players, min(DEFAULT_SEATS, info.max_players))
        if rest and rest[0].isdigit():
            players = int(rest.pop(0))
        need = None
        for word in list(rest):
            key, _, value = word.lower().partition("=")
            if key.replace("-", "").replace("_", "") == "ontime" and value:
                if not value.isdigit() or int(value) > 100:
                    raise Refused("bad_on_time", name=word)
                need = int(value)
                rest.remove(word)
        if not info.min_players <= players <= info.max_players:
            raise Refused("bad_players", low=info.min_players, high=info.max_players)
        variants = [v.lower().replace("-", "_") for v in rest]
        for variant in variants:
            if variant not in info.variants:
                raise Refused("bad_variant", name=variant, variants=list(info.variants))
        return {"game": name, "kind": info.name, "players": players, "variants": variants, "min_on_time": need}

    # --- confirmations ---------------------------------------------------------------------------

    def confirmation(self, token: str) -> tuple[str, str] | None:
        """A reply carrying a confirmation's token: the command done (outcome, reason); a used or expired one of
        this sender's is told so; None when the token is no confirmation sent to this address (answered as an
        unknown token, and the confirmation stays for its own address)."""
        row = take_confirmation(self.session, token, self.sender, self.now)
        if row is None:
            if is_stale_confirmation(self.session, token, self.sender):
                return self.answer("refused", why="expired"), "confirmation used already or expired"
            return None
        payload = row.payload
        try:
            if row.action == "join":
                return self.answer("joined", **self.join(payload)), f"JOIN {payload['game']} confirmed"
            if row.action == "resign":
                return self.answer("resigned", **self.resign(payload)), f"RESIGN {payload['game']} confirmed"
            if row.action == "takeover":
                return self.answer("took_over", **self.take_over(payload)), f"TAKEOVER {payload['game']} confirmed"
            if row.action == "start":
                waiting = self._open(str(payload["game"]))
                self.starting(waiting.name)
                self.start(waiting)
                return self.answer("started", name=payload["game"]), f"START {payload['game']} confirmed"
            if row.action == SET_ADDRESS.lower():
                return self.move_address(row)
            if row.action == "observe":
                game = self._running(str(payload["game"]))
                self.observing(game.name)
                existing = find_observer(self.session, game, self.sender)
                if existing is None or not existing.active:
                    welcome_observer(self.session, game, self.sender, Sender(
                        self.identity.address, self.identity.domain, self.identity.name), self.now)
                return CONFIRMED_OUTCOME, f"OBSERVE {game.name} confirmed"
            return self.answer("created", **self.create(payload)), f"CREATE {payload['game']} confirmed"
        except Refused as refused:
            return self.answer("refused", why=refused.why, **refused.values), f"confirmed, but {refused.why}"

    def join(self, payload: dict[str, Any]) -> dict[str, Any]:
        waiting = self._open(str(payload["game"]))
        player = str(payload["player"])
        self._check_join(waiting, player)
        if len(joins_of(self.session, waiting)) + 1 == waiting.players:
            self._name_free(waiting.name)  # the seat that starts the game: refused whole if it cannot
        add_join(self.session, waiting, player, self.sender, self.now)
        joined = joins_of(self.session, waiting)
        free = waiting.players - len(joined)
        if free == 0:
            self.start(waiting)
        return {"name": waiting.name, "player": player, "free": free}

    def start(self, waiting: OpenGameRow) -> None:
        """Every seat is taken: the game, in this transaction, seated in the order the players joined."""
        players = [(j.name, j.email) for j in joins_of(self.session, waiting)]
        name, kind, variants = waiting.name, waiting.kind, list(waiting.variants)
        self._name_free(name)
        close_open_game(self.session, waiting)
        setup = self.moderator.make_setup(name, players, variants=variants, kind=kind)
        _, _, game_id = create_game_in(self.session, self.moderator, self.config, name, setup, self.now, kind=kind)
        game = self.session.get(GameRow, game_id)
        assert game is not None
        # its creator is its first game master (pbem.moderator.mastermail): the master's own token, by mail
        name_master(self.session, game, waiting.creator, HOST, self.identity, self.now)

    def resign(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The seat is given up; the game master is asked to find a player (or to let one TAKEOVER)."""
        game = self._active(str(payload["game"]))
        seat = self._own_seat(game)
        set_vacant(self.session, seat, True, self.now)
        body = said(TEMPLATE, what="vacant", name=game.name, player=seat.name, seat=seat.seat + 1,
                    address=self.identity.address, commands=COMMANDS)
        for master in alert_addresses(self.session, game, MailContext(game_master=self.identity.game_master)):
            self.compose.to_address(master, purpose="vacant", key=f"vacant:{seat.name}:{master}:{self.tag}",
                                    game=game, body=body,
                                    subject=game_subject(game.name, MailSubject.SEAT_GIVEN_UP, player=seat.name))
        return {"name": game.name, "player": seat.name}

    def take_over(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The game master's replace, in this transaction: the seat's name stays, its address is the sender's."""
        game = self._active(str(payload["game"]))
        if any(s.email.strip().lower() == self.sender for s in seats(self.session, game)):
            raise Refused("joined_already", name=game.name)
        seat = self._vacant(game, str(payload["player"]))
        set_vacant(self.session, seat, False, self.now)
        identity = self.identity
        mail = MailContext.make(moderator_address=identity.address, game_master=identity.game_master,
                                name=identity.name, site=identity.site)
        replace_in(self.session, game.name, seat.name, seat.name, self.sender, mail, self.now)
        return {"name": game.name, "player": seat.name, "seat": seat.seat + 1}

    def move_address(self, row: ConfirmationRow) -> tuple[str, str]:
        """One of SET ADDRESS's two confirmations: when the other address has confirmed too, every seat of the
        old address (running games, games waiting for players) moves to the new one."""
        payload = row.payload
        other = next((c for c in self.session.exec(select(ConfirmationRow).where(
            col(ConfirmationRow.action) == row.action, col(ConfirmationRow.id) != row.id,
            col(ConfirmationRow.address).in_((payload["old"], payload["new"]))))
            if c.payload.get("pair") == payload["pair"]), None)
        if other is None or other.used is None:
            self.answer("address_half", old=self.sender == payload["old"])
            return CONFIRMED_OUTCOME, "SET ADDRESS: one of two addresses confirmed"
        old, new = str(payload["old"]), str(payload["new"])
        games = self._games_of(old)
        for game in games:  # all checked before any moves: the new address took a seat meanwhile
            if any(s.email.strip().lower() == new for s in seats(self.session, game)):
                raise Refused("joined_already", name=game.name)
        moved = []
        for game in games:
            seat = next(s for s in seats(self.session, game) if s.email.strip().lower() == old)
            change_address_in(self.session, game.name, seat.name, new)
            moved.append(game.name)
        for join in joins_at(self.session, old):
            join.email = new
            self.session.add(join)
        self.session.flush()
        self.answer("address_moved", games=moved)
        return CONFIRMED_OUTCOME, f"SET ADDRESS: {len(moved)} game(s) moved"

    def _name_free(self, name: str) -> None:
        """A game waiting for players cannot start under a name ``pbem game new`` took meanwhile."""
        if self.session.exec(select(GameRow.id).where(col(GameRow.name) == name)).first() is not None:
            raise Refused("name_taken", name=name)

    def create(self, payload: dict[str, Any]) -> dict[str, Any]:
        need = payload.get("min_on_time")
        checked = self.creating((str(payload["game"]), str(payload["kind"]), str(payload["players"]),
                                 *payload["variants"], *(() if need is None else (f"ontime={need}",))))
        create_open_game(self.session, checked["game"], checked["kind"], checked["players"], checked["variants"],
                         self.sender, self.now, checked["min_on_time"])
        return {"name": checked["game"], "title": kind_of(checked["kind"]).info.title, "seats": checked["players"],
                "variants": checked["variants"], "need": checked["min_on_time"]}
