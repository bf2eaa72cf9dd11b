"""The prompt: what a player must decide now, every legal option with its cost, examples to copy.

Like the rest of ``pbem.games.imperial2030.viewmodels`` this only builds view models; the
layout is ``templates/prompt.j2``. Examples are tried on the engine before
they are offered, so a line copied from a prompt is never refused.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    BuyBond,
    ChooseSpace,
    DestroyFactory,
    Done,
    FleetMove,
    Import,
    Pass,
    Produce,
    UpgradeBond,
)
from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, DecisionKind, decisions_for
from engine.imperial2030.errors import EngineError
from engine.imperial2030.game import apply
from engine.imperial2030.model import (
    ForceStopStep,
    GameState,
    InvestMode,
    InvestStep,
    ManeuverStep,
    Stance,
    UnitKind,
)
from engine.imperial2030.movement import army_routes, movable
from pbem.games.imperial2030.orders.keywords import Keyword
from pbem.games.imperial2030.orders.keywords import shown as keyword
from pbem.games.imperial2030.orders.lexicon import shown, word
from pbem.games.imperial2030.orders.names import space_id_text
from pbem.games.imperial2030.sayings import say
from pbem.games.imperial2030.viewmodels import (
    _canal_name,
    _check_player,
    decision_words,
    order_text,
)
from pbem.render.text import due_stamp

PROMPT_WORDS = "_prompt_words"  # templates/imperial2030/_prompt_words.j2: the prompt's sentences
MAX_ORDER_COLUMN = 34  # options written longer than this put their details on the next line


def _deadline_text(deadline: datetime | str | None) -> str | None:
    if deadline is None:
        return None
    if isinstance(deadline, datetime):
        stamp = due_stamp(deadline)
        return stamp if deadline.tzinfo else stamp.removesuffix(" UTC")  # a naive time names no zone
    return str(deadline)


@dataclass(frozen=True)
class OptionLine:
    order: str
    detail: str


@dataclass(frozen=True)
class OptionGroup:
    title: str
    options: tuple[OptionLine, ...]


@dataclass(frozen=True)
class DecisionView:
    kind: str
    nation: str
    title: str
    about: tuple[str, ...]
    groups: tuple[OptionGroup, ...]
    combine: str
    examples: tuple[tuple[str, ...], ...]
    default: str
    out_of_turn: bool
    column: int = 36  # where the details of the options start


@dataclass(frozen=True)
class PromptView:
    game: str
    reader: str
    version: int
    round: int
    decisions: tuple[DecisionView, ...]
    money: str
    deadline: str | None


def prompt_view(
    state: GameState,
    reader: str,
    *,
    game: str = "",
    deadline: datetime | str | None = None,
) -> PromptView | None:
    """What ``reader`` must decide now, with every legal option; None when they decide nothing."""
    _check_player(state, reader)
    decisions = decisions_for(state, reader)
    if not decisions or state.finished:
        return None
    views = tuple(_decision_view(state, reader, d) for d in decisions)
    return PromptView(game, reader, state.version, state.round, views, _money_line(state, reader, decisions),
                      _deadline_text(deadline))


_MONEY_KINDS = (DecisionKind.RONDEL, DecisionKind.FACTORY, DecisionKind.IMPORT, DecisionKind.PRODUCTION,
                DecisionKind.INVESTMENT, DecisionKind.SETUP_BOND)


def _money_line(state: GameState, reader: str, decisions: Sequence[Decision]) -> str:
    """The reader's cash and the treasuries concerned, when the decision involves money; else empty."""
    if not any(d.kind in _MONEY_KINDS for d in decisions):
        return ""
    board = state.board
    nations = []
    for d in decisions:
        if d.nation and d.nation not in nations and d.kind in (
                DecisionKind.RONDEL, DecisionKind.FACTORY, DecisionKind.IMPORT, DecisionKind.PRODUCTION):
            nations.append(d.nation)
    return _words("money", cash=state.players[reader].cash,
                  treasuries=[(shown(board, n), state.nations[n].treasury) for n in nations])


def _decision_view(state: GameState, reader: str, decision: Decision) -> DecisionView:
    board = state.board
    nation = shown(board, decision.nation) if decision.nation else ""
    kind = decision.kind
    title = decision_words(state, decision)
    title = title[0].upper() + title[1:]
    about: list[str] = []
    groups: list[OptionGroup]
    combine = ""
    default = order_text(board, decision.default) if decision.default is not None else ""
    if kind is DecisionKind.RONDEL:
        about, groups = _rondel_options(state, decision)
    elif kind is DecisionKind.INVESTMENT or kind is DecisionKind.SETUP_BOND:
        about, groups = _invest_options(state, reader, decision)
    elif kind is DecisionKind.FACTORY:
        tables = board.tables
        about = [_words("factory_about", nation=nation, cost=tables.factory_cost, order=order_text(board, Pass()))]
        groups = [OptionGroup("", tuple(
            OptionLine(order_text(board, o.action), _words("factory_option", kind=_factory_kind(state, o.action),
                                                           cost=o.cost))
            for o in decision.options))]
    elif kind is DecisionKind.PRODUCTION:
        about = [_words("production_about", nation=nation)]
        groups = [OptionGroup("", tuple(
            OptionLine(order_text(board, o.action), _produce_detail(state, o.action)) for o in decision.options))]
        if decision.limit > 1:
            listed = [p for o in decision.options[1:3] if isinstance(o.action, Produce) for p in o.action.provinces or ()]
            combine = _words("production_combine", order=order_text(board, Produce(tuple(listed))))
    elif kind is DecisionKind.IMPORT:
        tables = board.tables
        about = [_words("import_about", nation=nation, units=tables.import_max_units,
                        cost=tables.import_cost_per_unit)]
        groups = [OptionGroup("", tuple(
            OptionLine(order_text(board, o.action), _words("import_option", cost=o.cost))
            for o in decision.options))]
        combine = _words("import_combine", limit=decision.limit) if decision.limit > 1 else ""
    elif kind is DecisionKind.FORCE_STOP:
        target = state.step.target if isinstance(state.step, ForceStopStep) else None
        about = [_words("force_stop_about", nation=nation, target=shown(board, target) if target else None)]
        groups = [OptionGroup("", (OptionLine(order_text(board, decision.options[0].action), _words("force_stop_yes")),
                                   OptionLine(order_text(board, decision.options[1].action), _words("force_stop_no"))))]
    elif kind.value == "maneuver":
        about = _maneuver_about(state, decision)
        groups = _maneuver_groups(state, decision)
    else:
        about = _question_about(state, decision)
        groups = [OptionGroup("", tuple(OptionLine(order_text(board, o.action), _cost_detail(o.cost))
                                        for o in decision.options))]
    kept = tuple(g for g in groups if g.options)
    widths = [len(o.order) for g in kept for o in g.options if len(o.order) <= MAX_ORDER_COLUMN]
    return DecisionView(
        kind=kind.value,
        nation=nation,
        title=title,
        about=tuple(about),
        groups=kept,
        combine=combine,
        examples=_examples(state, reader, decision),
        default=default,
        out_of_turn=decision.out_of_turn,
        column=max(widths, default=0) + 3,
    )


def _words(macro: str, **values: Any) -> str:
    """One sentence or phrase of ``templates/imperial2030/_prompt_words.j2``."""
    return say(PROMPT_WORDS, macro, **values)


def _cost_detail(cost: int) -> str:
    return _words("costs", cost=cost)


def _factory_kind(state: GameState, action: Action) -> str | None:
    """The kind of factory an order builds ("armaments", "shipyard"), None where no city is named."""
    city = getattr(action, "city", None)
    region = state.board.regions.get(city) if city else None
    if region is None or region.city is None:
        return None
    return "armaments" if region.city.value == "armaments" else "shipyard"


def _produce_detail(state: GameState, action: Action) -> str:
    assert isinstance(action, Produce)
    board = state.board
    if action.provinces is None:
        return _words("produced", units=[], every=True)
    units = []
    for p in action.provinces:
        region = board.regions[p]
        port = shown(board, region.port) if region.port else None
        units.append(("army", None) if region.city and region.city.value == "armaments" else ("fleet", port))
    return _words("produced", units=units, every=False)


def _rondel_options(state: GameState, decision: Decision) -> tuple[list[str], list[OptionGroup]]:
    board = state.board
    tables = board.tables
    nation = decision.nation
    assert nation is not None
    ns = state.nations[nation]
    about: list[str]
    if ns.rondel is None:
        about = [_words("first_turn", nation=shown(board, nation))]
    else:
        about = [_words("marker_stands", nation=shown(board, nation), space=shown(board, ns.rondel),
                        most=tables.max_spaces, free=tables.free_spaces, cost=1 + state.multiplier(nation))]
    lines = []
    for o in decision.options:
        assert isinstance(o.action, ChooseSpace)
        space = o.action.space
        action_name = board.rondel_by_id[space].action.value
        name = shown(board, space) if board.name(space).lower() == action_name else action_name.capitalize()
        lines.append(OptionLine(order_text(board, o.action), _words(
            "space_option", name=name, steps=o.steps, cost=o.cost, investor=_passes_investor(state, nation, space))))
    skipped = _unaffordable(state, decision)
    if skipped:
        about.append(skipped)
    return about, [OptionGroup("", tuple(lines))]


def _passes_investor(state: GameState, nation: str, space: str) -> str | None:
    """"pays" when the marker lands on Investor (bond interest is due), "passes" when it goes past it."""
    board = state.board
    start = state.nations[nation].rondel
    if space == board.investor_space:
        return "pays"
    if start is not None and board.rondel_passes(start, space, board.investor_space):
        return "passes"
    return None


def _unaffordable(state: GameState, decision: Decision) -> str:
    """Spaces within reach that the rules rule out now, and why (too dear, interest unpayable)."""
    board = state.board
    nation = decision.nation
    assert nation is not None
    ns = state.nations[nation]
    if ns.rondel is None:
        return ""
    listed = {o.action.space for o in decision.options if isinstance(o.action, ChooseSpace)}
    cash = state.players[decision.player].cash
    extra = 1 + state.multiplier(nation)
    count = len(board.rondel_ids)
    index = board.rondel_ids.index(ns.rondel)
    parts: list[tuple[str, int | None, int | str]] = []
    for steps in range(1, board.tables.max_spaces + 1):
        space = board.rondel_ids[(index + steps) % count]
        if space in listed:
            continue
        cost = max(0, steps - board.tables.free_spaces) * extra
        if cost > cash:
            parts.append((space_id_text(board, space), steps, cost))
        else:
            parts.append((space_id_text(board, space), None, shown(board, nation)))
    if not parts:
        return ""
    return _words("out_of_reach", spaces=parts, cash=cash)


def _invest_options(state: GameState, reader: str, decision: Decision) -> tuple[list[str], list[OptionGroup]]:
    board = state.board
    step = state.step
    about: list[str] = []
    if decision.kind is DecisionKind.SETUP_BOND:
        about.append(_words("setup_bond_about", nation=shown(board, decision.nation or "")))
    elif isinstance(step, InvestStep) and step.mode is InvestMode.CARD and reader == state.investor_card:
        about.append(_words("investor_card_about", payment=board.tables.investor_card_payment))
    elif isinstance(step, InvestStep) and decision.nation is None:
        about.append(_words("swiss_bank_about"))
    else:
        about.append(_words("invest_about", nation=shown(board, decision.nation or "")))
    about.append(_words("governments_settled"))
    by_nation: dict[str, list[OptionLine]] = {}
    passes: list[OptionLine] = []
    for o in decision.options:
        action = o.action
        if isinstance(action, BuyBond | UpgradeBond):
            note = _government_note(state, reader, action) if decision.kind is DecisionKind.INVESTMENT else ""
            if isinstance(action, BuyBond):
                detail = _words("bond", cost=o.cost, interest=board.tables.interest(action.value), old_interest=None,
                                note=note)
            else:
                detail = _words("bond", cost=o.cost, interest=board.tables.interest(action.new),
                                old_interest=board.tables.interest(action.old), note=note)
            by_nation.setdefault(action.nation, []).append(OptionLine(order_text(board, action), detail))
        else:
            passes.append(OptionLine(order_text(board, action), _words("invest_nothing")))
    groups = [OptionGroup(shown(board, n), tuple(lines)) for n, lines in by_nation.items()]
    groups.append(OptionGroup(_words("group", key="or") if groups else "", tuple(passes)))
    return about, groups


def _government_note(state: GameState, reader: str, action: BuyBond | UpgradeBond) -> str:
    """What the investment would do to the nation's government, as things stand."""
    nation = action.nation
    gov = state.nations[nation].government
    mine = state.players[reader].bond_total(nation) + (
        action.value if isinstance(action, BuyBond) else action.new - action.old)
    if gov == reader:
        return ""
    if gov is None:
        return _words("government", gov=None, mine=mine, theirs=0)
    theirs = state.players[gov].bond_total(nation)
    if mine > theirs:
        return _words("government", gov=gov, mine=mine, theirs=theirs)
    return ""


def _maneuver_about(state: GameState, decision: Decision) -> list[str]:
    board = state.board
    nation = shown(board, decision.nation) if decision.nation else None
    step = state.step
    moving_armies = isinstance(step, ManeuverStep) and step.armies_moving
    about = [_words("maneuver_about", nation=nation, hostile=word("HOSTILE"),
                    friendly=word("FRIENDLY"), attack=f"{keyword(Keyword.ATTACK)} <nation>",
                    done=keyword(Keyword.DONE))]
    if moving_armies:
        about.append(_words("fleets_stopped"))
    return about


def _maneuver_groups(state: GameState, decision: Decision) -> list[OptionGroup]:
    """Fleet moves; army moves by where the armies stand (HOSTILE/FRIENDLY pairs on one line); the rest."""
    board = state.board
    nation = decision.nation or ""
    fleets: list[OptionLine] = []
    armies: dict[str, list[tuple[ArmyMove, list[str]]]] = {}
    rest: dict[str, list[OptionLine]] = {"attacks": [], "factories": [], "end": []}  # _prompt_words.j2's groups
    for o in decision.options:
        action = o.action
        text = order_text(board, action)
        if isinstance(action, FleetMove):
            canal = _canal_on(board, action.origin, action.dest)
            detail = _words("fleet_move", canal=_canal_name(canal) if canal else None,
                            from_port=not board.regions[action.origin].is_sea)
            fleets.append(OptionLine(text, detail))
        elif isinstance(action, ArmyMove):
            moves = armies.setdefault(action.origin, [])
            same = next((m for m in moves if m[0].dest == action.dest), None)
            if same is not None and action.stance is not None:
                same[1].append(word(action.stance.value.upper()))
            else:
                moves.append((action, []))
        elif isinstance(action, Attack):
            rest["attacks"].append(OptionLine(text, ""))
        elif isinstance(action, DestroyFactory):
            rest["factories"].append(OptionLine(text, _words("destroy_detail")))
        elif isinstance(action, Done):
            rest["end"].append(OptionLine(text, _words("done_detail")))
        else:
            rest["end"].append(OptionLine(text, _cost_detail(o.cost)))
    groups = [OptionGroup(_words("group", key="fleets"), tuple(fleets))]
    for origin, moves in armies.items():
        routes = _army_routes(state, nation, origin)
        count = _movable_armies(state, nation, origin)
        title = _words("armies_in", region=shown(board, origin), count=count)
        lines = []
        for action, others in moves:
            words = [_words("or_stance", stance=w) for w in others]
            route = routes.get(action.dest)
            if route is not None:
                words.append(_route_words(board, route))
            lines.append(OptionLine(order_text(board, action), "; ".join(w for w in words if w)))
        groups.append(OptionGroup(title, tuple(lines)))
    groups += [OptionGroup(_words("group", key=key), tuple(lines)) for key, lines in rest.items()]
    return groups


def _canal_on(board: Board, a: str, b: str) -> str | None:
    for edge in board.edges:
        if {edge.a, edge.b} == {a, b}:
            return edge.canal
    return None


def _army_routes(state: GameState, nation: str, origin: str) -> dict[str, Any]:
    """The engine's route to each destination (how the army would go), or nothing if it cannot tell."""
    try:
        step = state.step
        return dict(army_routes(state, nation, step, origin)) if isinstance(step, ManeuverStep) else {}
    except (AttributeError, TypeError, KeyError, ValueError, EngineError):
        return {}


def _movable_armies(state: GameState, nation: str, origin: str) -> int:
    try:
        step = state.step
        return int(movable(state, nation, step, UnitKind.ARMY, origin)) if isinstance(step, ManeuverStep) else 0
    except (AttributeError, TypeError, KeyError, ValueError, EngineError):
        return 0


def _route_words(board: Board, route: Any) -> str:
    """How the engine would move the army: by rail, overland then rail, or by sea (and which canal)."""
    kind = str(getattr(route, "kind", ""))
    seas = tuple(getattr(route, "seas", ()) or ())
    canals = tuple(getattr(route, "canals", ()) or ())
    landing = getattr(route, "landing", None)
    landed = shown(board, landing) if landing and landing != getattr(route, "dest", landing) else None
    return _words("route", seas=[shown(board, s) for s in seas], canals=[_canal_name(c) for c in canals],
                  rail=kind == "rail", landing=landed)


def _question_about(state: GameState, decision: Decision) -> list[str]:
    """A question put to another government during a maneuver (canal, battle) or any new kind."""
    board = state.board
    entry = getattr(state.step, "entry", None)
    mover = shown(board, state.turn.nation) if state.turn else None
    nation = shown(board, decision.nation) if decision.nation else ""
    if decision.kind.value == "canal" and entry is not None:
        return [_words("canal_question", mover=mover, unit=entry.kind.value, origin=shown(board, entry.origin),
                       dest=shown(board, entry.dest), canal=_canal_name(entry.canals[0]) if entry.canals else None,
                       nation=nation, allow=keyword(Keyword.ALLOW), deny=keyword(Keyword.DENY))]
    if decision.kind.value == "battle" and entry is not None:
        return [_words("battle_question", mover=mover, unit=entry.kind.value, dest=shown(board, entry.dest),
                       nation=nation, fight=keyword(Keyword.FIGHT), no_fight=keyword(Keyword.NO_FIGHT))]
    return []


def _examples(state: GameState, reader: str, decision: Decision) -> tuple[tuple[str, ...], ...]:
    """Two or three ready-to-copy answers, each one or a few lines, every one tried on the engine first."""
    board = state.board
    options = [o.action for o in decision.options]
    kind = decision.kind
    candidates: list[list[Action]] = []
    after: dict[int, GameState] = {}  # candidate's index -> the state after its first action, already played
    if kind is DecisionKind.RONDEL:
        for o in _spread(list(decision.options), 3, key=lambda o: o.cost == 0):
            follow, played = _follow_up(state, reader, o.action)
            if played is not None:
                after[len(candidates)] = played
            candidates.append([o.action] + ([follow] if follow is not None else []))
    elif kind is DecisionKind.IMPORT:
        units = [u for a in options if isinstance(a, Import) for u in a.units]
        if units:
            first = units[0]
            other = [u for u in units if u.kind != first.kind][:1]
            combo = ((first,) * 2 + tuple(other))[:decision.limit]
            candidates += [[Import(combo)], [Import((units[-1],))]]
        candidates.append([Import(())])
    elif kind is DecisionKind.PRODUCTION:
        candidates.append([Produce(None)])
        candidates += _each([a for a in options if isinstance(a, Produce) and a.provinces][:1])
    elif kind.value == "maneuver":
        candidates += _maneuver_examples(state, reader, decision)
    else:
        candidates += [[a] for a in _spread([a for a in options if not isinstance(a, Pass)], 2)]
        candidates += _each([a for a in options if isinstance(a, Pass)][:1])
    found: list[tuple[str, ...]] = []
    for number, actions in enumerate(candidates):
        lines = tuple(order_text(board, a) for a in actions)
        if actions and lines not in found and _plays(state, reader, actions, after.get(number)):
            found.append(lines)
    return tuple(found[:3])


def _plays(state: GameState, reader: str, actions: Sequence[Action], after: GameState | None = None) -> bool:
    """Whether the engine takes these actions from ``reader`` one after the other, each still theirs to give.
    ``after``: the state the engine made of the first action when it was played already (a rondel move's, to
    find what follows it): the engine makes the same state of the same action, so it is not played again."""
    state, start = (state, 0) if after is None else (after, 1)
    try:
        for index in range(start, len(actions)):
            if index and not decisions_for(state, reader):
                return False
            state, _ = apply(state, reader, actions[index])
    except EngineError:
        return False
    return True


def _maneuver_examples(state: GameState, reader: str, decision: Decision) -> list[list[Action]]:
    """A fleet move, a quiet army move and DONE; and another quiet army move alone."""
    mover = state.turn.nation if state.turn else ""
    fleets = [o.action for o in decision.options if isinstance(o.action, FleetMove)
              and not _crowded(state, mover, o.action.dest) and not _canal_on(state.board, o.action.origin, o.action.dest)]
    first: list[Action] = []
    after = state
    if fleets:
        try:
            after, _ = apply(state, reader, fleets[0])
            first.append(fleets[0])
        except EngineError:
            after = state
    quiet_after = _quiet_army_moves(after, reader)
    if quiet_after:
        first.append(quiet_after[0])
    first.append(Done())
    result = [first]
    quiet = _quiet_army_moves(state, reader)
    if len(quiet) > 1:
        result.append([quiet[-1]])
    return result


def _quiet_army_moves(state: GameState, reader: str) -> list[ArmyMove]:
    """Army moves that raise no question: no foreign units where they go, no canal on the way."""
    decisions = decisions_for(state, reader)
    if not decisions or decisions[0].kind.value != "maneuver" or state.turn is None:
        return []
    mover = state.turn.nation
    moves = []
    for o in decisions[0].options:
        action = o.action
        if not isinstance(action, ArmyMove) or action.stance is Stance.HOSTILE:
            continue
        if not _crowded(state, mover, action.dest):
            moves.append(action)
    return moves


def _crowded(state: GameState, mover: str, region: str) -> bool:
    """Whether units of another nation stand in ``region`` (entering it raises a battle question)."""
    return any(ns.armies.get(region) or ns.fleets.get(region) for n, ns in state.nations.items() if n != mover)


def _spread(items: list[Any], count: int, key: Any = None) -> list[Any]:
    """Up to ``count`` items spread over the list (first, middle, last), preferring those ``key`` likes."""
    pool = [i for i in items if key(i)] if key else list(items)
    if len(pool) < count and key:
        pool += [i for i in items if i not in pool]
    if len(pool) <= count:
        return pool
    step = (len(pool) - 1) / (count - 1) if count > 1 else 0
    picked = []
    for k in range(count):
        item = pool[round(k * step)]
        if item not in picked:
            picked.append(item)
    return picked


def _follow_up(state: GameState, reader: str, action: Action) -> tuple[Action | None, GameState | None]:
    """The order that would follow a rondel move in the same message (its action's details), if any; and the
    state after the move (None when the engine refuses it), which ``_plays`` starts from."""
    try:
        after, _ = apply(state, reader, action)
    except EngineError:
        return None, None
    next_decisions = decisions_for(after, reader)
    if not next_decisions:
        return None, after
    d = next_decisions[0]
    if d.kind is DecisionKind.PRODUCTION:
        return Produce(None), after
    if d.kind is DecisionKind.IMPORT:
        units = [u for o in d.options if isinstance(o.action, Import) for u in o.action.units]
        return Import(tuple(units[:1])), after
    if d.kind is DecisionKind.FACTORY:
        builds = [o.action for o in d.options if not isinstance(o.action, Pass)]
        return (builds[0] if builds else None), after
    return None, after


def _each(actions: Sequence[Action]) -> list[list[Action]]:
    """Each action as an example of its own."""
    return [[action] for action in actions]
