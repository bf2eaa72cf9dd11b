"""View models: everything a mail says, worked out in Python, for templates that only format.

Each ``*_view`` function reads a ``GameState`` (plus events, the reader and the
options of the mail) and returns frozen dataclasses of plain strings and
numbers. Nothing here writes text layout; nothing in ``templates/`` decides
what is true. The prompt's view models are in ``pbem.games.imperial2030.prompts``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from engine.imperial2030.actions import Action
from engine.imperial2030.board import Board, CityKind
from engine.imperial2030.decisions import Decision, DecisionKind, pending
from engine.imperial2030.describe import describe
from engine.imperial2030.events import Event, GameEnded
from engine.imperial2030.model import (
    ActionStep,
    FinishedStep,
    ForceStopStep,
    GameState,
    InvestMode,
    InvestStep,
    ManeuverStep,
    RondelStep,
    SetupBondsStep,
)
from engine.imperial2030.scoring import final_scores, player_score
from pbem.games.imperial2030.board import (
    FACTORY_MARK,
    DrawnBoard,
    draw_board,
    draw_rondel,
    local_labels,
    nation_codes,
)
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import format_action
from pbem.games.imperial2030.orders.format import localize_order
from pbem.games.imperial2030.orders.lexicon import canal as local_canal
from pbem.games.imperial2030.orders.lexicon import end_reason, shown, space
from pbem.games.imperial2030.orders.lexicon import name as local_name
from pbem.games.imperial2030.sayings import say
from pbem.render.identitycache import same_objects
from pbem.render.text import clip

VIEW_WORDS = "_view_words"  # templates/imperial2030/_view_words.j2: the view models' few words
NAME_WIDTH = 10  # player names longer than this are clipped in tables (never in sentences)


# --- small helpers ----------------------------------------------------------------------------


def order_text(board: Board, action: Action) -> str:
    """The canonical order for an action; the engine's words (first word in capitals) as a fallback."""
    try:
        return format_action(board, action)
    except (TypeError, ValueError, AttributeError):
        words = describe(board, action).split(" ", 1)
        return " ".join([words[0].upper(), *words[1:]])


def _view_words(macro: str, **values: Any) -> str:
    """One phrase or sentence of ``templates/imperial2030/_view_words.j2``."""
    return say(VIEW_WORDS, macro, **values)


def _step_words(state: GameState) -> str:
    """What the nation whose turn it is is doing now."""
    step = state.step
    board = state.board
    match step:
        case RondelStep():
            return _view_words("step", kind="rondel", value=None)
        case ActionStep(action):
            return _view_words("step", kind="action", value=space(action.value.capitalize()))
        case ManeuverStep():
            return _view_words("step", kind="maneuver", value=None)
        case ForceStopStep(target, _):
            return _view_words("step", kind="force_stop", value=shown(board, target))
        case InvestStep(mode=InvestMode.CARD):
            return _view_words("step", kind="investor_round", value=None)
        case InvestStep():
            return _view_words("step", kind="investment_round", value=None)
    return _view_words("step", kind="other", value=None)


def decision_words(state: GameState, decision: Decision) -> str:
    """What a pending decision asks, in a few words: 'choose a rondel space for Russia'."""
    board = state.board
    nation = shown(board, decision.nation) if decision.nation else ""
    kind = decision.kind.value
    mover = shown(board, state.turn.nation) if state.turn else None
    entry = getattr(state.step, "entry", None)
    canal = where = None
    if kind == DecisionKind.INVESTMENT and isinstance(state.step, InvestStep) and state.step.mode is InvestMode.CARD:
        kind = "card" if decision.player == state.investor_card else "swiss_bank"
    elif kind == DecisionKind.CANAL:
        canal = _canal_name(entry.canals[0]) if entry is not None and entry.canals else None
    elif kind == DecisionKind.BATTLE:
        where = shown(board, entry.dest) if entry is not None else None
    return _view_words("decision", kind=kind, nation=nation, mover=mover, canal=canal, where=where)


def _canal_name(canal: str) -> str:
    return local_canal(canal.replace("_", " ").title())


# --- the board -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelView:
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class BoardView:
    game: str
    round: int
    version: int
    panels: tuple[PanelView, ...]
    notes: tuple[str, ...]  # regions whose pieces did not fit their slots, in full
    nations: tuple[tuple[str, str], ...]  # (code, name)
    english_kept: bool = False  # some region's name did not fit its cell in the seat's language (issue 30)


@same_objects  # every seat's report of a move shows the same board
def board_view(state: GameState, game: str = "") -> BoardView:
    drawn: DrawnBoard = draw_board(state)
    lines, kept = local_labels(state.board, tuple(p.lines for p in drawn.panels))
    panels = tuple(PanelView(p.title, local) for p, local in zip(drawn.panels, lines, strict=True))
    nations = tuple((code, local_name(english)) for code, english in drawn.nation_codes)
    return BoardView(game, state.round, state.version, panels, drawn.notes(state.board), nations, kept)


# --- the rondel ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RondelView:
    lines: tuple[str, ...]
    off: str  # "Not on the rondel yet: IN, BR." or ""
    costs: tuple[str, ...]  # sentences: what moves cost, and a space beyond the free ones per nation now


@same_objects  # every seat's report of a move shows the same rondel
def rondel_view(state: GameState) -> RondelView:
    board = state.board
    drawn = draw_rondel(state)
    codes = nation_codes(board)
    tables = board.tables
    off = _view_words("off_rondel", off=list(drawn.off))
    cost = [(codes[n], 1 + state.multiplier(n)) for n in board.nation_ids]
    costs = (_view_words("rondel_costs", most=tables.max_spaces, free=tables.free_spaces),
             _view_words("further_space", costs=cost))
    return RondelView(drawn.lines, off, costs)


# --- nations and players -----------------------------------------------------------------------


@dataclass(frozen=True)
class NationRow:
    id: str
    name: str
    code: str
    government: str
    treasury: int
    power: int
    multiplier: int
    rondel: str
    factories: int
    armies: int
    hostile: int
    fleets: int
    flags: int
    details: str  # where its factories, flags and hostile armies are, in words
    to_play: bool


@dataclass(frozen=True)
class BondView:
    nation: str
    value: int
    interest: int

    @property
    def text(self) -> str:
        return f"{self.nation} {self.value}"


@dataclass(frozen=True)
class PlayerRow:
    seat: int
    name: str
    you: bool
    governs: str  # "Russia, Europe" or ""
    bonds: tuple[BondView, ...]
    bonds_text: str
    interest: int
    cash: int | None  # None: secret
    roles: str  # "investor card", "Swiss bank"


@same_objects  # and the same nations
def nation_rows(state: GameState) -> tuple[NationRow, ...]:
    board = state.board
    codes = nation_codes(board)
    turn = state.turn.nation if state.turn and not state.finished else None
    rows = []
    for nation in board.nation_ids:
        ns = state.nations[nation]
        factories = [f"{shown(board, f)} {_factory_mark(board.regions[f].city)}".rstrip() for f in ns.factories]
        hostile = {r: c for r, c in ns.hostile.items() if c}
        details = _view_words("details", nation=shown(board, nation), factories=factories,
                              flags=[shown(board, r) for r in sorted(ns.flags, key=board.name)],
                              hostile=[(shown(board, r), c) for r, c in sorted(hostile.items())])
        rows.append(NationRow(
            id=nation,
            name=shown(board, nation),
            code=codes[nation],
            government=clip(ns.government, NAME_WIDTH) if ns.government else "-",
            treasury=ns.treasury,
            power=ns.power,
            multiplier=state.multiplier(nation),
            rondel=shown(board, ns.rondel) if ns.rondel else "-",
            factories=len(ns.factories),
            armies=sum(ns.armies.values()),
            hostile=sum(hostile.values()),
            fleets=sum(ns.fleets.values()),
            flags=len(ns.flags),
            details=details,
            to_play=nation == turn,
        ))
    return tuple(rows)


def _swiss_bank(state: GameState, player: str) -> bool:
    """R-INVEST-7; during the expert bond selection nobody holds one yet."""
    return not isinstance(state.step, SetupBondsStep) and state.has_swiss_bank(player)


def player_rows(state: GameState, reader: str | None, open_cash: bool = False) -> tuple[PlayerRow, ...]:
    """The players in seating order as ``reader`` sees them: the rows every seat shares (:func:`_player_facts`)
    with the reader marked, and the others' cash hidden unless ``open_cash``."""
    return tuple(PlayerRow(seat=row.seat, name=row.name, you=row.name == reader, governs=row.governs, bonds=row.bonds,
                           bonds_text=row.bonds_text, interest=row.interest,
                           cash=row.cash if open_cash or reader is None or row.name == reader else None,
                           roles=row.roles)
                 for row in _player_facts(state))


@same_objects  # every seat's report of a move shows the same players: only who reads and whose cash it sees differ
def _player_facts(state: GameState) -> tuple[PlayerRow, ...]:
    """Each player's row with every cash shown and nobody the reader (``player_rows`` makes the reader's)."""
    board = state.board
    tables = board.tables
    rows = []
    for seat, name in enumerate(state.seating, start=1):
        p = state.players[name]
        bonds = tuple(BondView(shown(board, b.nation), b.value, tables.interest(b.value))
                      for b in sorted(p.bonds, key=lambda b: (board.nation_ids.index(b.nation), -b.value)))
        roles = []
        if state.investor_card == name:
            roles.append(_view_words("role", role="investor_card"))
        if _swiss_bank(state, name):
            roles.append(_view_words("role", role="swiss_bank"))
        rows.append(PlayerRow(
            seat=seat,
            name=name,
            you=False,
            governs=", ".join(shown(board, n) for n in state.governed_by(name)),
            bonds=bonds,
            bonds_text=", ".join(b.text for b in bonds) or "none",
            interest=sum(b.interest for b in bonds),
            cash=p.cash,
            roles=", ".join(roles),
        ))
    return tuple(rows)


@dataclass(frozen=True)
class Waiting:
    player: str
    what: str
    you: bool


def waiting_list(state: GameState, reader: str | None = None) -> tuple[Waiting, ...]:
    return tuple(Waiting(player, what, player == reader) for player, what in _waiting_for(state))


@same_objects  # every seat's report of a move waits for the same decisions
def _waiting_for(state: GameState) -> tuple[tuple[str, str], ...]:
    """(player, what they decide, in words) for each pending decision."""
    return tuple((d.player, decision_words(state, d)) for d in pending(state))


@same_objects  # every seat's report of a move says the same turn
def turn_line(state: GameState) -> str:
    board = state.board
    if isinstance(state.step, FinishedStep):
        return _view_words("game_over", reason=end_reason(state.board, state.step.reason))
    if isinstance(state.step, SetupBondsStep):
        return _view_words("setting_up", nation=shown(board, state.step.nation))
    if state.turn is None:
        return _view_words("round", round=state.round)
    nation = state.turn.nation
    return _view_words("turn", round=state.round, nation=shown(board, nation), gov=state.nations[nation].government,
                       step=_step_words(state))


# --- the turn report --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportView:
    game: str
    reader: str
    round: int
    version: int
    finished: bool
    happened: tuple[str, ...]
    nations: tuple[NationRow, ...]
    players: tuple[PlayerRow, ...]
    name_width: int
    own_cash: int
    open_cash: bool
    rondel: RondelView
    turn: str
    waiting: tuple[Waiting, ...]
    you_decide: bool
    board: BoardView | None
    scores: tuple[tuple[str, int], ...] = field(default=())


def report_view(
    state: GameState,
    reader: str,
    events: Iterable[Event] = (),
    *,
    game: str = "",
    open_cash: bool = False,
    board: bool = True,
) -> ReportView:
    """The turn report for ``reader``: ``events`` are what happened since their last report."""
    _check_player(state, reader)
    nations = nation_rows(state)
    players = player_rows(state, reader, open_cash)
    waiting = waiting_list(state, reader)
    return ReportView(
        game=game,
        reader=reader,
        round=state.round,
        version=state.version,
        finished=state.finished,
        happened=tuple(narrate(state.board, list(events), viewer=reader)),
        nations=nations,
        players=players,
        name_width=max(len(p.name) for p in players) if players else 4,
        own_cash=state.players[reader].cash,
        open_cash=open_cash,
        rondel=rondel_view(state),
        turn=turn_line(state),
        waiting=waiting,
        you_decide=any(w.you for w in waiting),
        board=board_view(state, game) if board else None,
        scores=tuple(final_scores(state)) if state.finished else (),
    )


def _check_player(state: GameState, player: str) -> None:
    if player not in state.players:
        raise ValueError(f"{player!r} is not a player of this game; players: {', '.join(state.seating)}")


# --- welcome, error, game end -------------------------------------------------------------------


@dataclass(frozen=True)
class WelcomeView:
    game: str
    player: str
    seat: int
    seats: tuple[tuple[int, str, bool], ...]  # (number, name, is the reader)
    players: int
    governs: str
    bonds: str
    cash: int
    open_cash: bool
    investor_card: str
    swiss_bank: bool
    reply_to: str | None
    turn: str
    waiting: tuple[Waiting, ...]
    you_decide: bool
    variants: str
    mail_note: str = ""  # the core's items on the seat's mail (GameKind.welcome)
    example: tuple[str, ...] = ()  # a reply on the nation's turn, ready to copy


# The welcome's example of a reply, in the order language (written in the seat's words by ``localize_order``).
WELCOME_EXAMPLE = ("RONDEL import", "IMPORT army Moscow, fleet Vladivostok")


def welcome_view(state: GameState, player: str, *, game: str = "", reply_to: str | None = None,
                 open_cash: bool = False, mail_note: str = "") -> WelcomeView:
    _check_player(state, player)
    row = next(r for r in player_rows(state, player) if r.name == player)
    waiting = waiting_list(state, player)
    variants = _view_words("variants", variants=sorted(v.value.replace("_", " ") for v in state.setup.variants))
    return WelcomeView(
        game=game,
        player=player,
        seat=state.seating.index(player) + 1,
        seats=tuple((i, name, name == player) for i, name in enumerate(state.seating, start=1)),
        players=len(state.seating),
        governs=row.governs,
        bonds=_view_words("bonds", bonds=[(b.text, b.interest) for b in row.bonds]),
        cash=state.players[player].cash,
        open_cash=open_cash,
        investor_card=state.investor_card or "",
        swiss_bank=_swiss_bank(state, player),
        reply_to=reply_to,
        turn=turn_line(state),
        waiting=waiting,
        you_decide=any(w.you for w in waiting),
        variants=variants,
        mail_note=mail_note,
        example=tuple(localize_order(state.board, line) for line in WELCOME_EXAMPLE),
    )


@dataclass(frozen=True)
class AppliedView:
    line_number: int
    line: str
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class ErrorView:
    game: str
    reader: str
    applied: tuple[AppliedView, ...]
    line_number: int | None
    line: str | None
    problem: str  # what kind of refusal, in words
    reason: str
    suggestions: tuple[str, ...]
    legal: tuple[str, ...]
    not_applied: tuple[tuple[int, str], ...]  # lines after the refused one
    waiting: tuple[str, ...]


def error_view(state: GameState, reader: str, refusal: Any, *, game: str = "") -> ErrorView:
    """The reply to a refused message.

    ``refusal`` is a moderator ``SubmitResult`` with a refusal, a
    ``pbem.games.imperial2030.orders.MessageResult`` with an error, an ``OrderError``, or any
    object with the fields of the moderator's ``Refusal`` (reason,
    line_number, line, legal, suggestions, not_applied, kind). ``state`` is
    the state after the lines that stood.
    """
    board = state.board
    applied: list[AppliedView] = []
    if getattr(refusal, "refusal", None) is not None:  # a moderator SubmitResult: its applied lines and refusal
        applied = [AppliedView(a.line_number, a.line, tuple(narrate(board, a.events, viewer=reader)))
                   for a in refusal.applied]
        refusal = refusal.refusal
    error = getattr(refusal, "error", None)
    not_applied_raw: Sequence[Any] = ()
    if error is not None:  # a MessageResult
        for item in getattr(refusal, "applied", ()):
            applied.append(AppliedView(item.line.number, item.line.text,
                                       tuple(narrate(board, item.events, viewer=reader))))
        not_applied_raw = refusal.not_applied
    else:
        error = refusal
        not_applied_raw = getattr(refusal, "not_applied", ())
        for item in getattr(refusal, "applied", ()) or ():
            applied.append(AppliedView(item.line_number, item.line, tuple(getattr(item, "narration", ()))))
    kind = getattr(error, "kind", None) or type(error).__name__
    line_number = getattr(error, "line_number", None)
    lines: list[tuple[int, str]] = []
    for entry in not_applied_raw:
        number, text = (entry.number, entry.text) if hasattr(entry, "number") else (entry[0], entry[1])
        lines.append((number, text))
    if lines and line_number is not None and lines[0][0] == line_number:
        lines = lines[1:]  # the refused line itself is shown on its own
    legal = tuple(getattr(error, "orders", ()) or getattr(error, "legal", ()) or ())
    waiting: tuple[str, ...] = ()
    if reader not in {player for player, _ in _waiting_for(state)} and not state.finished:
        waiting = tuple(f"{w.player}: {w.what}" for w in waiting_list(state))
    return ErrorView(
        game=game,
        reader=reader,
        applied=tuple(applied),
        line_number=line_number,
        line=getattr(error, "line", None),
        problem=_view_words("problem", kind=kind),  # what went wrong, by the refusal's kind
        reason=str(getattr(error, "reason", error)),
        suggestions=tuple(getattr(error, "suggestions", ()) or ()),
        legal=legal,
        not_applied=tuple(lines),
        waiting=waiting,
    )


@dataclass(frozen=True)
class BondScore:
    nation: str
    value: int
    interest: int
    multiplier: int
    points: int


@dataclass(frozen=True)
class ScoreRow:
    rank: int
    player: str
    total: int
    cash: int
    bond_points: int
    bonds: tuple[BondScore, ...]
    you: bool
    tied: bool = False  # level with a neighbour in the ranking: the tie-break decided


@dataclass(frozen=True)
class GameEndView:
    game: str
    reader: str | None
    reason: str
    ranking: tuple[ScoreRow, ...]
    winner: str
    tiebreak: tuple[str, ...]
    nations: tuple[NationRow, ...]
    happened: tuple[str, ...]


def game_end_view(state: GameState, reader: str | None = None, events: Iterable[Event] = (), *,
                  game: str = "") -> GameEndView:
    board = state.board
    tables = board.tables
    ranking = final_scores(state)
    rows = []
    for rank, (player, total) in enumerate(ranking, start=1):  # ties are already broken (R-END-4)
        p = state.players[player]
        bonds = tuple(
            BondScore(shown(board, b.nation), b.value, tables.interest(b.value), state.multiplier(b.nation),
                      tables.interest(b.value) * state.multiplier(b.nation))
            for b in sorted(p.bonds, key=lambda b: (board.nation_ids.index(b.nation), -b.value)))
        assert player_score(state, player) == total
        tied = sum(1 for _, other in ranking if other == total) > 1
        rows.append(ScoreRow(rank, player, total, p.cash, sum(b.points for b in bonds), bonds, player == reader,
                             tied))
    reason = end_reason(state.board, state.step.reason) if isinstance(state.step, FinishedStep) \
        else _view_words("not_over")
    return GameEndView(
        game=game,
        reader=reader,
        reason=reason,
        ranking=tuple(rows),
        winner=ranking[0][0] if ranking else "",
        tiebreak=tuple(tie_break_lines(state, ranking)),
        nations=nation_rows(state),
        happened=tuple(narrate(board, [e for e in events if not isinstance(e, GameEnded)], viewer=reader)),
    )


def tie_break_lines(state: GameState, ranking: Sequence[tuple[str, int]]) -> list[str]:
    """R-END-4 in words, for every pair of neighbours in the ranking with equal scores."""
    board = state.board
    order = sorted(board.nation_ids, key=lambda n: -state.nations[n].power)
    lines = []
    for (first, score), (second, other) in pairwise(ranking):
        if score != other:
            continue
        p, q = state.players[first], state.players[second]
        same: list[str] = []
        for nation in order:
            a, b = p.bond_total(nation), q.bond_total(nation)
            if a != b:
                lines.append(_view_words("tie", first=first, second=second, score=score, same=same,
                                         nation=shown(board, nation), power=state.nations[nation].power, a=a, b=b))
                break
            same.append(shown(board, nation))
        else:
            lines.append(_view_words("tie", first=first, second=second, score=score, same=same, nation=None,
                                     power=0, a=0, b=0))
    return lines


def _factory_mark(city: CityKind | None) -> str:
    """[A] or [S] after a factory's province (nothing for a province without a city, which cannot happen)."""
    return FACTORY_MARK.get(city, "") if city is not None else ""
