"""Events in plain English: one sentence per thing that happened (the sentences: templates/imperial2030/_narration.j2).

Money is folded into the sentence it belongs to ("Russia moved to Taxation (4
spaces, anton paid 1).", "anton bought China 9.") and interest is summed up per
nation, so that a report reads like a game, not like a ledger. Every
``MoneyMoved`` not told as part of another sentence gets a sentence of its own:
nothing that happened is left out.

Standing orders are a player's secret: ``viewer`` (the reader of a report)
sees only their own; without a viewer (the game master) every one is told.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import TypeVar

from engine.imperial2030.board import Board
from engine.imperial2030.events import (
    AccountKind,
    ArmyMoved,
    Battle,
    BondBought,
    BondUpgraded,
    Event,
    FactoryBuilt,
    FactoryDestroyed,
    FightAnswered,
    FlagCardDealt,
    FlagPlaced,
    FlagRemoved,
    FleetMoved,
    ForceStopAnswered,
    GameEnded,
    GovernmentChanged,
    InvestmentPassed,
    InvestorCardPassed,
    MoneyMoved,
    NationSkipped,
    NothingDone,
    PassageAnswered,
    PowerGained,
    Reason,
    RondelMoved,
    StandingChanged,
    TaxCollected,
    TurnStarted,
    UnitsPlaced,
)
from engine.imperial2030.model import StandingOrder
from pbem.games.imperial2030.orders.lexicon import end_reason, shown
from pbem.games.imperial2030.sayings import say

# Money told by the sentence of the typed event that follows it.
_FOLDED = {Reason.RONDEL, Reason.BOND, Reason.UPGRADE, Reason.FACTORY, Reason.IMPORT,
           Reason.TAX, Reason.SOLDIERS_PAY, Reason.BONUS}
E = TypeVar("E", bound=Event)
_INTEREST = {Reason.INTEREST, Reason.INTEREST_SHORTFALL}


NARRATION = "_narration"  # templates/imperial2030/_narration.j2: one macro a sentence


def _tell(macro: str, **values: object) -> str:
    """One sentence (or phrase) of ``_narration.j2``."""
    return say(NARRATION, macro, **values)


def _canal(canal: str) -> str:
    return canal.replace("_", " ").title()


def standing_text(board: Board, order: StandingOrder) -> str:
    """A standing order in words: 'always allow Europe through Suez', 'never fight USA'."""
    return _tell("standing", kind=order.kind.value, nation=shown(board, order.nation) if order.nation else None,
                 canal=_canal(order.canal) if order.canal else None)


def _standing_values(board: Board, order: StandingOrder) -> tuple[str, str | None, str | None]:
    """``standing``'s values, for a sentence that tells a standing order."""
    return (order.kind.value, shown(board, order.nation) if order.nation else None,
            _canal(order.canal) if order.canal else None)


class _Narrator:
    def __init__(self, board: Board, viewer: str | None = None) -> None:
        self.board = board
        self.viewer = viewer
        self.nation: str | None = None  # whose turn it is, as far as the events tell
        self.money: list[MoneyMoved] = []  # money waiting to be folded into the next sentence
        self.lines: list[str] = []
        self.fighting: tuple[str, str] | None = None  # (nation, region) that just chose to fight a newcomer

    def sees(self, player: str) -> bool:
        """Whether the reader may see a secret of ``player`` (a standing order)."""
        return self.viewer is None or self.viewer == player

    def name(self, ident: str | None) -> str:
        return shown(self.board, ident) if ident else _tell("nobody")

    # --- money -------------------------------------------------------------------------

    def take(self, reason: Reason) -> list[MoneyMoved]:
        taken = [m for m in self.money if m.reason is reason]
        self.money = [m for m in self.money if m.reason is not reason]
        return taken

    def flush_money(self) -> None:
        """Tell money that no typed event claimed."""
        left, self.money = self.money, []
        for m in left:
            self.lines.append(self.money_sentence(m))

    def account(self, kind: AccountKind, owner: str | None) -> tuple[str, str | None]:
        """An account as the template's ``account`` takes it: its kind and whose (a nation's name for a treasury)."""
        if kind is AccountKind.BANK:
            return "bank", None
        if kind is AccountKind.TREASURY:
            return "treasury", self.name(owner)
        return "player", owner

    def money_sentence(self, m: MoneyMoved) -> str:
        if m.reason is Reason.DONATION:
            return _tell("donated", player=m.source.owner, amount=m.amount, nation=self.name(m.target.owner))
        if m.reason is Reason.INVESTOR_CARD:
            return _tell("investor_card", player=m.target.owner, amount=m.amount)
        if m.reason is Reason.STARTING_CASH:
            return _tell("starting_cash", player=m.target.owner, amount=m.amount)
        return _tell("paid", source=self.account(m.source.kind, m.source.owner),
                     target=self.account(m.target.kind, m.target.owner), amount=m.amount, reason=m.reason.value)

    def interest(self, run: list[MoneyMoved]) -> None:
        """One sentence per nation paying interest: who got how much, who made up a shortfall."""
        nation = next((m.source.owner for m in run if m.source.kind is AccountKind.TREASURY), self.nation)
        received: dict[str, int] = {}
        shortfall: dict[str, int] = {}
        for m in run:
            if m.target.owner:
                received[m.target.owner] = received.get(m.target.owner, 0) + m.amount
            if m.reason is Reason.INTEREST_SHORTFALL and m.source.owner:
                shortfall[m.source.owner] = shortfall.get(m.source.owner, 0) + m.amount
        self.lines.append(_tell("interest", nation=self.name(nation), received=list(received.items()),
                                shortfall=list(shortfall.items())))

    # --- the typed events -----------------------------------------------------------------

    def run(self, events: Sequence[Event]) -> list[str]:
        i = 0
        while i < len(events):
            event = events[i]
            if isinstance(event, MoneyMoved) and event.reason in _INTEREST:
                run = _run(events, i, lambda e: isinstance(e, MoneyMoved) and e.reason in _INTEREST, MoneyMoved)
                self.flush_money()
                self.interest(run)
                i += len(run)
                continue
            if isinstance(event, MoneyMoved) and event.reason is Reason.STARTING_CASH:
                run = _run(events, i, lambda e: isinstance(e, MoneyMoved) and e.reason is Reason.STARTING_CASH,
                           MoneyMoved)
                self.flush_money()
                self.starting_cash(run)
                i += len(run)
                continue
            if isinstance(event, UnitsPlaced):
                placed = _run(events, i, _placed_like(event), UnitsPlaced)
                self.units_placed(placed)
                i += len(placed)
                continue
            if isinstance(event, MoneyMoved):
                if event.reason in _FOLDED:
                    self.money.append(event)
                else:
                    self.flush_money()
                    self.lines.append(self.money_sentence(event))
            else:
                self.event(event)
            i += 1
        self.flush_money()
        return self.lines

    def starting_cash(self, run: list[MoneyMoved]) -> None:
        amounts = {m.amount for m in run}
        if len(run) > 1 and len(amounts) == 1:
            self.lines.append(_tell("each_starting_cash", amount=run[0].amount))
        else:
            self.lines.extend(self.money_sentence(m) for m in run)

    def units_placed(self, run: list[UnitsPlaced]) -> None:
        nation = run[0].nation
        placed = [(u.count, u.kind.value, self.name(u.region)) for u in run]
        if run[0].imported:
            paid = sum(m.amount for m in self.take(Reason.IMPORT))
            self.flush_money()
            self.lines.append(_tell("imported", nation=self.name(nation), units_placed=placed, paid=paid))
        else:
            self.flush_money()
            self.lines.append(_tell("produced", nation=self.name(nation), units_placed=placed))

    def event(self, event: Event) -> None:  # one branch per event type
        board = self.board
        name = self.name
        text: str
        match event:
            case TurnStarted(nation, round_):
                self.nation = nation
                text = _tell("turn_started", round=round_, nation=name(nation))
            case NationSkipped(nation):
                text = _tell("skipped", nation=name(nation))
            case RondelMoved(nation, start, space, steps, cost, _forced_by):
                self.nation = nation
                payers = [m.source.owner for m in self.take(Reason.RONDEL) if m.source.owner]
                if start is None:
                    text = _tell("marker_placed", nation=name(nation), space=shown(board, space))
                else:
                    text = _tell("rondel_moved", nation=name(nation), space=shown(board, space), steps=steps, cost=cost,
                                 payer=payers[0] if payers else None)
            case ForceStopAnswered(player, nation, force):
                text = _tell("force_stop", player=player, nation=name(nation), force=force)
            case FactoryBuilt(nation, city):
                paid = sum(m.amount for m in self.take(Reason.FACTORY))
                text = _tell("factory_built", nation=name(nation), city=shown(board, city), paid=paid)
            case NothingDone(nation, action, why):
                text = _tell("nothing_done", nation=name(nation), action=action, why=why)
            case FleetMoved(nation, origin, dest, canal):
                text = _tell("fleet_moved", nation=name(nation), origin=shown(board, origin), dest=shown(board, dest),
                             canal=_canal(canal) if canal else None)
            case ArmyMoved(nation, origin, dest, seas, stance, by_rail):
                # the seas whose own fleets carried it, and the canals crossed between them
                canals = [_canal(c) for a, b in pairwise(seas) if (c := board.canal_on(a, b))] if seas else []
                text = _tell("army_moved", nation=name(nation), origin=shown(board, origin), dest=shown(board, dest),
                             seas=[shown(board, s) for s in seas] if seas else [], canals=canals, by_rail=by_rail,
                             stance=stance.value if stance else None)
            case Battle(region, attacker, attacker_kind, defender, defender_kind):
                # R-BATTLE-1: a nation that chose to fight a newcomer is the engine's "attacker", but the
                # newcomer came to it: it fought, it did not attack.
                text = _tell("battle", region=shown(board, region), attacker=name(attacker),
                             attacker_kind=attacker_kind.value, defender=name(defender),
                             defender_kind=defender_kind.value, fought=self.fighting == (attacker, region))
                self.fighting = None
            case FightAnswered(player, nation, region, fight, standing):
                self.fighting = (nation, region) if fight else None
                text = _tell("fight_answered", player=player, nation=name(nation), region=shown(board, region),
                             fight=fight, standing=standing and self.sees(player))
            case PassageAnswered(player, nation, canal, mover, allow, standing):
                text = _tell("passage_answered", player=player, nation=name(nation), mover=name(mover),
                             canal=_canal(canal), allow=allow, standing=standing and self.sees(player))
            case FactoryDestroyed(owner, province, by):
                text = _tell("factory_destroyed", by=name(by), owner=name(owner), province=shown(board, province))
            case FlagPlaced(nation, region, replaced):
                text = _tell("flag_placed", nation=name(nation), region=shown(board, region),
                             replaced=name(replaced) if replaced else None)
            case FlagRemoved(nation, region, occupier):
                text = _tell("flag_removed", nation=name(nation), region=shown(board, region), occupier=name(occupier))
            case StandingChanged(player, order):
                if not self.sees(player):
                    self.flush_money()
                    return
                text = (_tell("standing_set", player=player, order=_standing_values(board, order)) if order
                        else _tell("standing_cleared", player=player))
            case TaxCollected(nation, income, factories, flags, owed, paid, bonus):
                gov = next((m.target.owner for m in self.take(Reason.BONUS)), None)
                self.take(Reason.TAX)
                self.take(Reason.SOLDIERS_PAY)
                text = _tell("tax", nation=name(nation), income=income, factories=factories, flags=flags, owed=owed,
                             paid=paid, bonus=bonus, gov=gov)
            case PowerGained(nation, points, total):
                text = _tell("power", nation=name(nation), points=points, total=total)
            case FlagCardDealt(nation, player):
                text = _tell("flag_card", player=player, nation=name(nation))
            case BondBought(player, nation, value):
                self.take(Reason.BOND)
                text = _tell("bond_bought", player=player, nation=name(nation), value=value)
            case BondUpgraded(player, nation, old, new):
                self.take(Reason.UPGRADE)
                text = _tell("bond_upgraded", player=player, nation=name(nation), old=old, new=new)
            case InvestmentPassed(player):
                text = _tell("not_invested", player=player)
            case GovernmentChanged(nation, None, new):
                text = _tell("government_formed", nation=name(nation), player=new)
            case GovernmentChanged(nation, old, new):
                text = _tell("government_passes", nation=name(nation), old=old, new=new)
            case InvestorCardPassed(old, new):
                text = _tell("investor_card_passes", old=old, new=new)
            case GameEnded(reason, scores):
                text = _tell("game_over", reason=end_reason(board, reason), scores=list(scores))
            case _:
                text = f"{event!r}"  # an event this narrator does not know yet: shown raw rather than hidden
        self.flush_money()
        self.lines.append(text)


def narrate(board: Board, events: Iterable[Event], viewer: str | None = None) -> list[str]:
    """Plain English sentences, in the order things happened, as ``viewer`` may read them."""
    return _Narrator(board, viewer).run(list(events))


def _run(events: Sequence[Event], start: int, same: Callable[[Event], bool], kind: type[E]) -> list[E]:
    """The events from ``start`` on that ``same`` accepts, up to the first it does not (all of type ``kind``)."""
    run: list[E] = []
    for event in events[start:]:
        if not same(event) or not isinstance(event, kind):
            break
        run.append(event)
    return run


def _placed_like(first: UnitsPlaced) -> Callable[[Event], bool]:
    """Units placed the same way as ``first`` (imported or produced, by the same nation): told in one sentence."""
    return lambda e: isinstance(e, UnitsPlaced) and e.imported == first.imported and e.nation == first.nation
