"""Names as players type them, resolved to the board's ids.

Players write "new-york", "NY", "St. Petersburg" or just "vlad"; the engine
only knows ids. Resolution happens in clear stages so that a refusal can say
exactly what went wrong:

1. normalise the text (the engine's own rule: lowercase, no spaces, hyphens,
   dots or apostrophes; here accents are dropped as well, because a player
   typing on an English keyboard cannot easily write "Brasília");
2. an exact match of an id, a name or an alias among the names allowed in the
   context (e.g. only the home cities of the nation whose turn it is), then
   anywhere in the same kind of thing (so that "BUILD Paris" in Russia's turn
   reaches the engine, which explains *why* it is refused);
3. a prefix that fits exactly one allowed name ("vlad", "rio");
4. otherwise an ``AmbiguousName`` listing the names the prefix fits, or an
   ``UnknownName`` with close spellings ("did you mean").

The board is the only source of names: nothing here knows a region by heart.
A seat whose language is not English (issue 30) may write each thing by its
name in that language too (``lexicon``: the glossary's, from the
catalogues): the names are read in the language being read
(``pbem.languages.spoken``), listed and suggested in it, and the English
ones stay valid.
"""
from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from engine.imperial2030.board import Board, SpaceAction
from engine.imperial2030.board_validation import normalise_name
from engine.imperial2030.model import UnitKind
from pbem.games.imperial2030.orders.errors import (
    AmbiguousName,
    BadName,
    OrderSyntaxError,
    UnknownName,
)
from pbem.games.imperial2030.orders.lexicon import Lexicon, lexicon
from pbem.games.imperial2030.orders.reasons import Among, Noun, Reason, why
from pbem.languages import Language, spoken

REGION = Noun(Among.REGION)  # any region of the map, how refusals speak of names looked for everywhere
MAX_LISTED = 12  # longer candidate lists are noise in an email; suggestions still point the way


_QUOTE_MARKS = str.maketrans("", "", "\"`\u2018\u201c\u201d")  # 'taxation', "Rio": quotes are no part of a name


NORMALISED_KEPT = 4096  # spellings remembered: every keyword, name and alias of every language, and what seats typed


@lru_cache(maxsize=NORMALISED_KEPT)
def normalise(text: str) -> str:
    """The form in which typed names are compared: the engine's rule plus accents and quote marks dropped.

    Remembered (a pure function of the text): reading one order looks up every keyword's spellings, each
    normalised again, some 90 times an order.
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_QUOTE_MARKS).replace("ł", "l").replace("Ł", "L"))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return normalise_name(plain)


@dataclass(frozen=True, slots=True)
class Named:
    """One thing that can be named: its id, the name shown to players and every normalised spelling."""

    id: str
    name: str
    keys: tuple[str, ...]

    @classmethod
    def of(cls, id: str, name: str, aliases: Iterable[str] = ()) -> Named:
        keys: list[str] = []
        for spelling in (id, name, *aliases):
            key = normalise(spelling)
            if key and key not in keys:
                keys.append(key)
        return cls(id, name, tuple(keys))


@dataclass(frozen=True, slots=True)
class Domain:
    """The names allowed in one context and how a refusal speaks of them ("home city of Russia")."""

    what: Noun
    entries: tuple[Named, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries)


@dataclass(frozen=True, slots=True)
class BoardNames:
    """Every nameable thing of one board, built once per board."""

    nations: tuple[Named, ...]
    regions: tuple[Named, ...]
    region_by_id: dict[str, Named]


def board_names(board: Board) -> BoardNames:
    """The board's names in the language being read (``pbem.languages.spoken``): a seat writes its own or English."""
    return _board_names(board, spoken())


def _local(lex: Lexicon | None, id: str, english: str, aliases: Iterable[str]) -> Named:
    """A thing named in the seat's language first (refusals list that name), then in English and its aliases."""
    if lex is None:
        return Named.of(id, english, aliases)
    return Named.of(id, lex.names.get(english, english), (*lex.also.get(english, ()), english, *aliases))


@lru_cache(maxsize=16)
def _board_names(board: Board, language: Language) -> BoardNames:
    lex = lexicon(language)
    nations = tuple(_local(lex, n.id, n.name, n.aliases) for n in sorted(board.nations, key=lambda n: n.turn_order))
    regions = tuple(_local(lex, r.id, r.name, r.aliases) for r in board.regions.values())
    return BoardNames(nations, regions, {r.id: r for r in regions})


# --- the general resolver --------------------------------------------------------------


def resolve(text: str, domain: Domain, wider: Domain | None = None) -> str:
    """The id ``text`` names within ``domain`` (exact, then exact in ``wider``, then a unique prefix)."""
    key = normalise(text)
    if not key:
        raise OrderSyntaxError(why(Reason.NAME_MISSING, what=domain.what.kind, of=domain.what.of),
                               suggestions=_listed(domain))
    for scope in (domain, wider):
        if scope is None:
            continue
        exact = _unique([e for e in scope.entries if key in e.keys])
        if len(exact) == 1:
            return exact[0].id
        if exact:  # two things share a spelling once normalised (possible only through accents)
            names = [e.name for e in exact]
            raise AmbiguousName(why(Reason.SAME_SPELLING, text=text, names=names), text=text, candidates=names)
    fits = _unique([e for e in domain.entries if any(k.startswith(key) for k in e.keys)])
    if len(fits) == 1:
        return fits[0].id
    if fits:
        names = [e.name for e in fits]
        raise AmbiguousName(why(Reason.WRITE_MORE, text=text, names=names), text=text, candidates=names)
    suggestions = _close(key, domain) or (_close(key, wider) if wider else ())
    listed = _listed(domain)
    raise UnknownName(why(Reason.NAMES_NO, text=text, what=domain.what.kind, of=domain.what.of, listed=listed),
                      text=text, candidates=listed,
                      suggestions=suggestions)


def _unique(entries: list[Named]) -> list[Named]:
    seen: dict[str, Named] = {}
    for e in entries:
        seen.setdefault(e.id, e)
    return list(seen.values())


def _listed(domain: Domain) -> tuple[str, ...]:
    return domain.names if len(domain.entries) <= MAX_LISTED else ()


def _close(key: str, domain: Domain) -> tuple[str, ...]:
    owner = {k: e.name for e in domain.entries for k in e.keys}
    found: list[str] = []
    for k in difflib.get_close_matches(key, list(owner), n=6, cutoff=0.7):
        if owner[k] not in found:
            found.append(owner[k])
    return tuple(found[:3])


# --- nations and regions ------------------------------------------------------------------


def nation_domain(board: Board) -> Domain:
    return Domain(Noun(Among.NATION), board_names(board).nations)


def region_domain(board: Board, among: Iterable[str] | None = None, what: Noun = REGION) -> Domain:
    """All regions, or only ``among`` (ids, kept in map order)."""
    names = board_names(board)
    if among is None:
        return Domain(what, names.regions)
    wanted = set(among)
    return Domain(what, tuple(r for r in names.regions if r.id in wanted))


def resolve_nation(board: Board, text: str) -> str:
    return resolve(text, nation_domain(board))


def resolve_region(board: Board, text: str, among: Iterable[str] | None = None, what: Noun = REGION) -> str:
    """A region id; with ``among``, prefixes are matched only there but any exact name is accepted.

    Accepting an exact name outside the context lets the engine give the real
    reason ("Paris is not a home city of Russia") instead of "unknown name".
    """
    domain = region_domain(board, among, what)
    return resolve(text, domain, region_domain(board) if among is not None else None)


def resolve_preferring(text: str, domain: Domain, preferred: Callable[[], Iterable[str]] | None,
                       what: Noun) -> str:
    """An id of ``domain``; a prefix that fits several is narrowed to the ``preferred`` ids.

    Used for destinations: any region may be named (the engine explains why
    one cannot be reached), but "FLEET Mediterranean Sea TO Ind" means the
    Indian Ocean, the one reachable region among Indian Ocean, Indochina and
    Indonesia. ``preferred`` is called only when it is needed.
    """
    try:
        return resolve(text, domain)
    except AmbiguousName as wide:
        if preferred is None:
            raise
        wanted = set(preferred())
        narrowed = Domain(what, tuple(e for e in domain.entries if e.id in wanted))
        try:
            return resolve(text, narrowed)
        except AmbiguousName:
            raise
        except BadName:
            raise wide from None


def sea_domain(board: Board) -> Domain:
    names = board_names(board)
    return Domain(Noun(Among.SEA), tuple(r for r in names.regions if board.regions[r.id].is_sea))


# --- canals --------------------------------------------------------------------------------


def canal_domain(board: Board) -> Domain:
    """The canals by id and name, with or without the word "canal" ("Suez", "Suez Canal")."""
    entries = []
    lex = lexicon(spoken())
    for canal in board.canals:
        name = canal.replace("_", " ").title()
        spellings = (f"{name} canal", f"{canal} canal")
        if lex is None:
            entries.append(Named.of(canal, name, spellings))
        else:
            entries.append(Named.of(canal, lex.canals.get(name, name), (*lex.also.get(name, ()), name, *spellings)))
    return Domain(Noun(Among.CANAL), tuple(entries))


def resolve_canal(board: Board, text: str) -> str:
    return resolve(text, canal_domain(board))


def is_canal(board: Board, text: str) -> bool:
    """True when ``text`` names a canal exactly (id or name, with or without "canal")."""
    key = normalise(text)
    return bool(key) and any(key in e.keys for e in canal_domain(board).entries)


# --- units ---------------------------------------------------------------------------------

_UNIT_DOMAIN = Domain(Noun(Among.UNIT_KIND), (  # refusals list them: "names no unit kind (army, fleet)"
    Named.of(UnitKind.ARMY.value, "army", ("armies", "a", "tank", "tanks")),
    Named.of(UnitKind.FLEET.value, "fleet", ("fleets", "f", "ship", "ships", "boat", "boats")),
))


def is_unit_kind(word: str) -> bool:
    """True for a whole word naming a unit kind (used to split "army moscow army moscow")."""
    key = normalise(word)
    return any(key in e.keys for e in _UNIT_DOMAIN.entries)


def resolve_unit_kind(text: str) -> UnitKind:
    return UnitKind(resolve(text, _UNIT_DOMAIN))


# --- rondel spaces ---------------------------------------------------------------------------

_SPACE_ALIASES: tuple[tuple[SpaceAction, tuple[str, ...]], ...] = (
    (SpaceAction.MANEUVER, ("manoeuvre", "maneuvre", "manoeuver", "manuever")),
    (SpaceAction.TAXATION, ("tax", "taxes")),
    (SpaceAction.INVESTOR, ("invest",)),
    (SpaceAction.PRODUCTION, ("produce",)),
)
FAR = "far"
NEAR = "near"


def _id_key(text: str) -> str:
    """Rondel ids compared without underscores, so "production 2" and "production_2" agree."""
    return normalise(text).replace("_", "")


def space_domain(board: Board) -> Domain:
    """One entry per kind of space (action); the ids of twin spaces are handled by ``resolve_space``."""
    entries = []
    for action in SpaceAction:
        spaces = [s for s in board.tables.rondel if s.action is action]
        if not spaces:
            continue
        aliases = [s.name for s in spaces] + [a for act, names in _SPACE_ALIASES if act is action for a in names]
        lex = lexicon(spoken())
        if lex is None:
            entries.append(Named.of(action.value, spaces[0].name, aliases))
        else:
            english = spaces[0].name
            entries.append(Named.of(action.value, lex.spaces.get(english, english),
                                    (*lex.also.get(english, ()), english, *aliases)))
    return Domain(Noun(Among.RONDEL_SPACE), tuple(entries))


def spaces_by_distance(board: Board, action: SpaceAction, marker: str | None) -> tuple[str, ...]:
    """The spaces of one kind, nearest clockwise first.

    From the marker's own space the distance counts as a full turn, because
    the marker may not stay; before the first placement (marker None) the
    order of the rondel in the map file decides.
    """
    ids = [sid for sid in board.rondel_ids if board.rondel_by_id[sid].action is action]
    if marker is None:
        return tuple(ids)
    count = len(board.rondel_ids)
    start = board.rondel_ids.index(marker)
    return tuple(sorted(ids, key=lambda sid: (board.rondel_ids.index(sid) - start - 1) % count))


def space_id_text(board: Board, sid: str) -> str:
    """A rondel space as an order names it whatever the marker's place: its id (``production_2``), in another
    language the name of its kind and its number (``Производство 2``), read back like the id."""
    lex = lexicon(spoken())
    if lex is None:
        return sid
    english = board.rondel_by_id[sid].name
    number = sid.rpartition("_")[2] if "_" in sid else ""
    return f"{lex.spaces.get(english, english)} {number}".strip()


def resolve_space(board: Board, text: str, marker: str | None) -> str:
    """A rondel space id: an id (``production_2``), or a kind, optionally ``far``/``near``.

    ``marker`` is the nation's current space; "production" means the nearer
    Production space clockwise from it, "production far" the farther one.
    """
    words = text.split()
    which = None
    if len(words) > 1 and normalise(words[-1]) in (FAR, NEAR):
        which = normalise(words[-1])
        words = words[:-1]
    phrase = " ".join(words)
    key = _id_key(phrase)
    for sid in board.rondel_ids:
        if key in (_id_key(sid), _id_key(space_id_text(board, sid))):
            if which is not None:
                raise OrderSyntaxError(why(Reason.ONE_SPACE, space=sid, which=which),
                                       suggestions=(f"RONDEL {sid}",))
            return sid
    action = SpaceAction(resolve(phrase, space_domain(board)))
    spaces = spaces_by_distance(board, action, marker)
    if which == FAR:
        if len(spaces) < 2:
            raise OrderSyntaxError(why(Reason.ONLY_ONE_SPACE, name=board.rondel_by_id[spaces[0]].name, far=FAR),
                                   suggestions=(f"RONDEL {spaces[0]}",))
        return spaces[-1]
    return spaces[0]
