"""What a game's public pages show, read from the store: only what every player may see.

The reader of a page is nobody in particular, like an observer: the events
are narrated for :data:`pbem.moderator.notify.observers.VIEWER`, and the
position shown is the one the kind shows the public. While a sealed round is
open (Eight-Minute Empire's bid), the kind's ``shown_move`` lies behind the
log: the pages then show the position where the round opened, replayed from
the log, and none of the round's answers, not even how many were given. So
the site written after a sealed answer is byte for byte the site written
before it. The deadlines are those of that position, counted from when the
round opened (``pbem.moderator.deadlines.decision_since`` with the true
state), so no clock moves when someone answers.

The history is the log replayed from the setup, one entry per action the
public is told of (``GameKind.tells``), numbered as the mails number moves
(``pbem.moderator.inbound.history``), each with the position after it: its
page shows that board. Pictures are named by a digest of the scene they
draw: a move that changes nothing on the board (a bid, a tax, an
investment) shares its picture with the move before, and the writer draws
only the pictures it does not have yet.

What the site published before (:mod:`pbem.moderator.site.history`) is
taken as it stands for every move whose log row is unchanged: only the
other moves are narrated and have their scene built, and the log is
replayed without either (applying a move costs a small part of narrating
it, and far less than building its picture's scene). A move taken from the
history has a board without a scene (``Board.scene`` None): its picture is
on disk already.

No seat's address or token is read here: the seats' names are all a page
knows of them.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from pbem.games import GameKind, kind_of
from pbem.languages import Language
from pbem.moderator.deadlines import deadlines, decision_since
from pbem.moderator.notify.observers import VIEWER
from pbem.moderator.site.history import History, entry_key
from pbem.moderator.site.links import slug
from pbem.render.scene import Scene
from pbem.render.text import due_stamp
from pbem.store import ActionRow, GameRow, GameStatus, game_setup, load_log, load_state
from pbem.store.absence import vacations_of
from pbem.store.settings import load_settings


@dataclass(frozen=True)
class Board:
    """A picture of the board: its file name (a digest of its scene) and the scene, drawn when it is missing;
    no scene for a picture the site has already (a move taken from its history)."""

    file: str
    scene: Scene | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class MoveView:
    """One move of the public history: its number, what happened, the board after it, and the key of its log
    row (:func:`pbem.moderator.site.history.entry_key`)."""

    number: int
    sentences: tuple[str, ...]
    board: Board
    key: str = ""
    known: bool = False  # taken from the site's history, not narrated now: its page is on disk


@dataclass(frozen=True)
class Due:
    """A decision the game waits for, as the public may see it: who, what, by when ('' without a deadline)."""

    player: str
    what: str
    due: str


@dataclass(frozen=True)
class GamePage:
    """Everything a game's pages show (``templates/site/game.html.j2``, ``move.html.j2``)."""

    name: str
    slug: str
    title: str
    language: Language
    finished: bool
    move: int  # the move number players are shown now
    turn_line: str
    dues: tuple[Due, ...]
    players: tuple[tuple[str, str], ...]  # (name, what they hold in words, or "")
    scores: tuple[tuple[str, int], ...]  # once the game is over, best first
    end_lines: tuple[str, ...]
    board_text: str
    board: Board
    moves: tuple[MoveView, ...]  # oldest first


@dataclass(frozen=True)
class GameLine:
    """A game as the site's index lists it: no state is loaded for it."""

    name: str
    slug: str
    title: str
    finished: bool
    players: tuple[str, ...]


def board_of(kind: GameKind, state: Any, game: str) -> Board:
    """The picture of ``state``'s board, named by what it draws."""
    scene = kind.picture(state, game=game)
    return Board(hashlib.sha256(repr(scene).encode("utf-8")).hexdigest()[:20] + ".png", scene)


def game_page(session: Session, game: GameRow, known: History | None = None) -> GamePage:
    """What ``game``'s pages show (see the module docstring), in the language being written (the caller's
    ``speaking``): narration, the turn line and the board's words are rendered here. ``known``: what the site
    published before, in that language (the moves of it whose log row is unchanged are not narrated again)."""
    kind = kind_of(game.kind)
    state = load_state(session, game)
    shown = kind.shown_move(state)
    current, _ = kind.new_game(game_setup(game))
    reuse = known.moves if known is not None and known.players == tuple(current.seating) else {}
    keys = _entry_keys(session, game)
    moves: list[MoveView] = []
    boards: dict[str, Board] = {}
    drawn: tuple[Any, Board] | None = None  # the last position whose scene was built, and its board
    for entry in load_log(session, game):
        if entry.version >= shown:  # a sealed round still open: none of its answers is public
            break
        current, events = kind.apply(current, entry.player, entry.action)
        if not kind.tells(current, events, VIEWER):
            continue
        number, key = entry.version + 1, keys.get(entry.version, "")
        published = reuse.get(number)
        if published is not None and published.key == key:
            moves.append(MoveView(number, published.sentences, Board(published.board), key, known=True))
            continue
        sentences = tuple(kind.narrate(current, events, VIEWER))
        if sentences:
            board = board_of(kind, current, game.name)
            board = boards.setdefault(board.file, board)
            drawn = (current, board)
            moves.append(MoveView(number, sentences, board, key))
    public = current  # the position at the shown move: the whole game, or where a sealed round opened
    settings = load_settings(session, game)
    dues: list[Due] = []
    if not public.finished:
        when = {(d.player, d.kind, d.nation): d.due for d in
                deadlines(public, settings, decision_since(session, game, state), kind, vacations_of(session, game))}
        for decision in kind.pending(public):
            if decision.answered:
                continue
            due = when.get((decision.player, decision.kind, decision.subject))
            dues.append(Due(decision.player, kind.decision_words(public, decision),
                            due_stamp(due) if due is not None else ""))
    finished = bool(public.finished) or game.status == GameStatus.FINISHED
    return GamePage(
        name=game.name, slug=slug(game.name), title=kind.info.title, language=Language(settings.language),
        finished=finished, move=shown, turn_line=kind.turn_line(public), dues=tuple(dues),
        players=tuple((player, kind.holding_words(public, player)) for player in public.seating),
        scores=tuple(kind.final_scores(public)) if public.finished else (),
        end_lines=tuple(kind.end_lines(public)) if public.finished else (),
        board_text=kind.board_text(public, game=game.name).rstrip("\n"),
        board=drawn[1] if drawn is not None and drawn[0] is public else board_of(kind, public, game.name),
        moves=tuple(moves))


def _entry_keys(session: Session, game: GameRow) -> dict[int, str]:
    """The key of each log row by its version (:func:`pbem.moderator.site.history.entry_key`)."""
    rows = session.exec(select(ActionRow.id, ActionRow.version, ActionRow.applied)
                        .where(col(ActionRow.game_id) == game.id)).all()
    return {version: entry_key(int(game.id or 0), int(row_id or 0), applied) for row_id, version, applied in rows}


def pictures(page: GamePage) -> Mapping[str, Scene]:
    """Every picture the game's pages show and whose scene was built now, by file name (those taken from the
    site's history are on disk: :func:`picture_files` names them all)."""
    found = {move.board.file: move.board.scene for move in page.moves if move.board.scene is not None}
    if page.board.scene is not None:
        found[page.board.file] = page.board.scene
    return found


def picture_files(page: GamePage) -> set[str]:
    """The file of every picture the game's pages show."""
    return {move.board.file for move in page.moves} | {page.board.file}


def game_line(game: GameRow, players: tuple[str, ...]) -> GameLine:
    kind = kind_of(game.kind)
    return GameLine(game.name, slug(game.name), kind.info.title, game.status == GameStatus.FINISHED, players)
