"""The public site written: the index of games, a page per game and per move, the board's pictures.

Layout of the folder (every link relative, so that any web server, or a
browser opening the files, finds them)::

    index.html                      every game: its title, players, whether it is over
    site.css                        the one style sheet (no script anywhere: none is needed)
    games/<game>/index.html         the board now, whose turn and by when, the players, the history
    games/<game>/moves/<n>.html     move n: what happened, and the board after it
    games/<game>/boards/<digest>.png a picture, named by what it draws

    games/<game>/history.html       every move, with what happened (the game's page lists the newest)
    games/<game>/history.json       what the refresh after a move takes as it stands (``site.history``)

When pages and pictures are written: a move's page, and the picture of the
board after it, are written once, when the move is published, that is by
the refresh after the move (the moderator's, with ``[site] dir``) or by
``pbem site DIR``. A picture is drawn only when its file is missing.

**Decision**: the refresh after a move is incremental. It takes the moves
the site published before from ``history.json`` (their narration and
picture names; :mod:`pbem.moderator.site.history` says when a move is taken
from it) and narrates, builds the scene of and draws only the others,
usually the one move just made (its board is the board now: at most one
picture). It renders only the pages whose bytes can change: the game's
page, the list of all moves, the new moves' pages, the page before the
first of them (its "next" link appears) and the last move's page (after a
move taken back its "next" link goes). The game's page lists the newest
moves only and links the list of all moves, a page that is cheap to render
from what is known but that a reader of the game's page, often on a phone,
need not load. ``pbem site`` does not read the history: it narrates, draws
what is missing and renders every page anew, so it repairs a folder broken
by hand or written by an older version. Drawing every move's picture, or
rendering every move's page, on every refresh would cost a long game
seconds per move; drawing none until a reader asks needs a server that
runs code, and the pages are static.

Every file is written atomically (a temporary file in the same folder, then
renamed over the old one), and only when its bytes change, so a reader
never sees half a page and a web server's caches stay valid. Move pages and
pictures no history shows any more (the game master took moves back) are
removed.

The refresh after a move (:func:`refresh_safely`) runs after the move's
mail is committed to the outbox; a failure is logged and never reaches the
mail: the next move's refresh writes the whole game again.
"""
from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session, col, select

from pbem.languages import SOURCE, Language, speaking
from pbem.moderator.site.history import FILE as HISTORY_FILE
from pbem.moderator.site.history import History, Published, history_bytes, read_history
from pbem.moderator.site.links import GAMES, slug
from pbem.moderator.site.public import GamePage, game_line, game_page, picture_files, pictures
from pbem.render.pages import render_page, static_text
from pbem.render.picture import render_png
from pbem.store import Database, GameRow, find_game, seats
from pbem.store.models import id_of
from pbem.store.settings import load_settings

log = logging.getLogger("pbem.moderator.site")

STYLE = "site.css"
INDEX = "index.html"
MOVES, BOARDS = "moves", "boards"
HISTORY_PAGE = "history.html"


@dataclass(frozen=True)
class Written:
    """What a write did: files whose bytes changed (pages, the style sheet), pictures drawn, games written."""

    files: int = 0
    pictures: int = 0
    games: int = 0

    def __add__(self, other: Written) -> Written:
        return Written(self.files + other.files, self.pictures + other.pictures, self.games + other.games)


def write_file(path: Path, data: bytes) -> bool:
    """``data`` into ``path`` atomically, unless the file holds it already; whether it was written."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".writing-", suffix=path.suffix)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # a web server reads it (mkstemp makes it the owner's alone)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return True


def _page(template: str, **context: object) -> bytes:
    return render_page(template, **context).encode("utf-8")


def game_files(page: GamePage, *, every: bool = True) -> dict[str, bytes]:
    """The pages of one game, by path relative to its folder (in the language being written), and its history
    (``history.json``). Not ``every``: the move pages that can have changed since the history was written
    (see the module docstring), not those of moves taken from it."""
    language = page.language.value
    files = {INDEX: _page("site/game.html.j2", g=page, root="../../", language=language),
             HISTORY_PAGE: _page("site/history.html.j2", g=page, root="../../", language=language),
             HISTORY_FILE: history_bytes(History(language, tuple(player for player, _ in page.players),
                                                 {move.number: Published(move.number, move.key, move.sentences,
                                                                         move.board.file) for move in page.moves}))}
    moves = page.moves
    for index, move in enumerate(moves):
        following = moves[index + 1] if index + 1 < len(moves) else None
        if every or not move.known or (following is not None and not following.known) or following is None:
            files[f"{MOVES}/{move.number}.html"] = _page(
                "site/move.html.j2", g=page, m=move, root="../../../", language=language,
                previous=moves[index - 1].number if index > 0 else None,
                following=following.number if following is not None else None)
    return files


def write_game(db: Database, folder: Path, game_id: int, *, every: bool = True) -> Written:
    """Read the game (one short transaction), then write its pages and the pictures it lacks. ``every``
    (``pbem site``): every page anew; else the refresh after a move (see the module docstring)."""
    with db.transaction() as session:
        game = session.get(GameRow, game_id)
        if game is None:
            return Written()
        language = Language(_language(session, game))
        home = folder / GAMES / slug(game.name)
        known = None if every else _known(home, language.value)
        with speaking(language):  # the pages, the narration and the picture's words in the game's language
            page = game_page(session, game, known)
            files = game_files(page, every=every)
    history = files.pop(HISTORY_FILE)  # written last: it vouches for the pages and pictures written before it
    written = sum(write_file(home / path, data) for path, data in files.items())
    drawn = 0
    for name, scene in pictures(page).items():
        target = home / BOARDS / name
        if not target.exists():
            write_file(target, render_png(scene))
            drawn += 1
    written += write_file(home / HISTORY_FILE, history)
    _remove_stale(home / MOVES, {f"{move.number}.html" for move in page.moves})
    _remove_stale(home / BOARDS, picture_files(page))
    return Written(written, drawn, 1)


def _known(home: Path, language: str) -> History | None:
    """What the site published of the game in ``language``: the moves of ``history.json`` whose page and
    picture are on disk (the others are written again)."""
    history = read_history(home / HISTORY_FILE)
    if history is None or history.language != language:
        return None
    pages, boards = _names(home / MOVES), _names(home / BOARDS)
    return History(history.language, history.players,
                   {number: move for number, move in history.moves.items()
                    if f"{number}.html" in pages and move.board in boards})


def _names(where: Path) -> set[str]:
    try:
        return {path.name for path in where.iterdir()}
    except OSError:
        return set()


def _language(session: Session, game: GameRow) -> str:
    """The game's language (its setting), English for a code this moderator does not know."""
    chosen = load_settings(session, game).language
    return chosen if chosen in {language.value for language in Language} else SOURCE.value


def _remove_stale(where: Path, keep: set[str]) -> None:
    """Files of ``where`` that no page shows any more (moves taken back), and temporary files left by a crash."""
    if not where.is_dir():
        return
    for path in where.iterdir():
        if path.is_file() and path.name not in keep:
            path.unlink(missing_ok=True)


def write_index(db: Database, folder: Path) -> Written:
    """The index of every game, and the style sheet."""
    with db.transaction() as session:
        rows = _all_games(session)
        lines = [game_line(row, tuple(seat.name for seat in seats(session, row))) for row in rows]
        languages = {_language(session, row) for row in rows}
    language = Language(languages.pop()) if len(languages) == 1 else SOURCE  # the games' one language, else English
    with speaking(language):
        index = _page("site/index.html.j2", games=lines, language=language.value, root="")
    written = write_file(folder / INDEX, index) + write_file(folder / STYLE, static_text("site/site.css").encode())
    return Written(written)


def _all_games(session: Session) -> list[GameRow]:
    return list(session.exec(select(GameRow).order_by(col(GameRow.name))).all())


def write_site(db: Database, folder: Path, games: tuple[str, ...] = ()) -> Written:
    """Every game's pages (or those of ``games``, by name) and the index (``pbem site DIR``)."""
    with db.transaction() as session:
        ids = [id_of(find_game(session, name)) for name in games] if games else \
            [id_of(row) for row in _all_games(session)]
    total = Written()
    for game_id in ids:
        total += write_game(db, folder, game_id)
    return total + write_index(db, folder)


def refresh_safely(db: Database, folder: Path, game_id: int, *, every: bool = False) -> Written:
    """After a move's mail is committed, or a game master's command: the game's pages and the index written
    again, only what changed unless ``every`` (a command that renames a player). Never raises: a failure is
    logged and the next refresh tries again (and ``pbem site`` repairs what it left)."""
    try:
        return write_game(db, folder, game_id, every=every) + write_index(db, folder)
    except Exception:
        log.exception("the public pages of game %s could not be written to %s; the next move tries again",
                      game_id, folder)
        return Written()
