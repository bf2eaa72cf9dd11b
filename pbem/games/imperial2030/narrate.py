"""Events in plain English: one sentence per thing that happened.

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
from engine.imperial2030.model import StandingKind, StandingOrder, UnitKind

# Money told by the sentence of the typed event that follows it.
_FOLDED = {Reason.RONDEL, Reason.BOND, Reason.UPGRADE, Reason.FACTORY, Reason.IMPORT,
           Reason.TAX, Reason.SOLDIERS_PAY, Reason.BONUS}
E = TypeVar("E", bound=Event)
_INTEREST = {Reason.INTEREST, Reason.INTEREST_SHORTFALL}


def _units(count: int, kind: UnitKind) -> str:
    word = kind.value
    if count == 1:
        return f"an {word}" if word[0] in "aeiou" else f"a {word}"
    return f"{count} {word}s"


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def _canal(canal: str) -> str:
    return canal.replace("_", " ").title()


def standing_text(board: Board, order: StandingOrder) -> str:
    """A standing order in words: 'always allow Europe through Suez', 'never fight USA'."""
    nation = board.name(order.nation) if order.nation else None
    canal = _canal(order.canal) if order.canal else "the canals"
    match order.kind:
        case StandingKind.FIGHT:
            return f"always fight {nation or 'every nation'}"
        case StandingKind.NO_FIGHT:
            return f"never fight {nation or 'any nation'}"
        case StandingKind.ALLOW:
            return f"always allow {nation or 'every nation'} through {canal}"
        case StandingKind.DENY:
            return f"always deny {nation or 'every nation'} passage through {canal}"
        case StandingKind.FORCE:
            return f"force {nation or 'every nation'} to stop on Investor whenever allowed"
        case StandingKind.NO_FORCE:
            return f"never force {nation or 'any nation'} to stop on Investor"
    return order.kind.value.replace("_", " ")


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
        return self.board.name(ident) if ident else "nobody"

    def possessive(self, nation: str) -> str:
        name = self.name(nation)
        return name + ("'" if name.endswith("s") else "'s")

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

    def account(self, kind: AccountKind, owner: str | None) -> str:
        if kind is AccountKind.BANK:
            return "the bank"
        if kind is AccountKind.TREASURY:
            return f"the treasury of {self.name(owner)}"
        return owner or "nobody"

    def money_sentence(self, m: MoneyMoved) -> str:
        if m.reason is Reason.DONATION:
            return f"{m.source.owner} donated {m.amount} to {self.name(m.target.owner)}."
        if m.reason is Reason.INVESTOR_CARD:
            return f"{m.target.owner} received {m.amount} with the investor card."
        if m.reason is Reason.STARTING_CASH:
            return f"{m.target.owner} received {m.amount} starting cash."
        source = self.account(m.source.kind, m.source.owner)
        target = self.account(m.target.kind, m.target.owner)
        return f"{source[0].upper() + source[1:]} paid {m.amount} to {target} ({m.reason.value})."

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
        paid = ", ".join(f"{amount} to {player}" for player, amount in received.items())
        text = f"{self.name(nation)} paid interest: {paid}"
        if shortfall:
            text += " (" + ", ".join(f"{p} made up {a} from own cash" for p, a in shortfall.items()) + ")"
        self.lines.append(text + ".")

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
            self.lines.append(f"Each player received {run[0].amount} starting cash.")
        else:
            self.lines.extend(self.money_sentence(m) for m in run)

    def units_placed(self, run: list[UnitsPlaced]) -> None:
        nation = run[0].nation
        what = _join([f"{_units(u.count, u.kind)} in {self.name(u.region)}" for u in run])
        if run[0].imported:
            paid = sum(m.amount for m in self.take(Reason.IMPORT))
            self.flush_money()
            self.lines.append(f"{self.name(nation)} imported {what}" + (f" (paid {paid})." if paid else "."))
        else:
            self.flush_money()
            self.lines.append(f"{self.name(nation)} produced {what}.")

    def event(self, event: Event) -> None:  # one branch per event type
        board = self.board
        text: str
        match event:
            case TurnStarted(nation, round_):
                self.nation = nation
                text = f"Round {round_}: {self.possessive(nation)} turn."
            case NationSkipped(nation):
                text = f"{self.name(nation)} has no government and is skipped."
            case RondelMoved(nation, start, space, steps, cost, _forced_by):
                self.nation = nation
                payers = [m.source.owner for m in self.take(Reason.RONDEL) if m.source.owner]
                if start is None:
                    text = f"{self.name(nation)} placed its marker on {board.name(space)}."
                else:
                    detail = _plural(steps, "space")
                    if cost:
                        detail += f", {payers[0] if payers else 'the government'} paid {cost}"
                    text = f"{self.name(nation)} moved to {board.name(space)} ({detail})."
            case ForceStopAnswered(player, nation, force):
                if force:
                    text = f"{player} (Swiss bank) forced {self.name(nation)} to stop on Investor."
                else:
                    text = f"{player} (Swiss bank) did not force {self.name(nation)} to stop on Investor."
            case FactoryBuilt(nation, city):
                paid = sum(m.amount for m in self.take(Reason.FACTORY))
                text = f"{self.name(nation)} built a factory in {board.name(city)}" + (f" (paid {paid})." if paid else ".")
            case NothingDone(nation, action, why):
                text = f"{self.name(nation)} did nothing on {action.capitalize()}: {why}."
            case FleetMoved(nation, origin, dest, canal):
                text = f"{self.name(nation)} moved a fleet from {board.name(origin)} to {board.name(dest)}"
                text += f" through the {_canal(canal)} canal." if canal else "."
            case ArmyMoved(nation, origin, dest, seas, stance, by_rail):
                text = f"{self.name(nation)} moved an army from {board.name(origin)} to {board.name(dest)}"
                if seas:  # the seas whose own fleets carried it, and the canals crossed between them
                    text += " by convoy via " + _join([board.name(s) for s in seas])
                    canals = [c for a, b in pairwise(seas) if (c := board.canal_on(a, b))]
                    text += "".join(f" through the {_canal(c)} canal" for c in canals)
                elif by_rail:
                    text += " by rail"
                text += f", {stance.value}." if stance else "."
            case Battle(region, attacker, attacker_kind, defender, defender_kind):
                # R-BATTLE-1: a nation that chose to fight a newcomer is the engine's "attacker", but the
                # newcomer came to it: it fought, it did not attack.
                if self.fighting == (attacker, region):
                    what = f"fought {self.possessive(defender)} arriving {defender_kind.value}"
                else:
                    what = f"attacked {self.name(defender)}"
                text = (f"Battle in {board.name(region)}: {self.name(attacker)} {what}; "
                        f"{self.name(attacker)} lost {_units(1, attacker_kind)}, "
                        f"{self.name(defender)} lost {_units(1, defender_kind)}.")
                self.fighting = None
            case FightAnswered(player, nation, region, fight, standing):
                self.fighting = (nation, region) if fight else None
                how = " (standing order)" if standing and self.sees(player) else ""
                text = (f"{player} ({self.name(nation)}) chose to fight in {board.name(region)}{how}." if fight
                        else f"{player} ({self.name(nation)}) did not fight in {board.name(region)}{how}.")
            case PassageAnswered(player, nation, canal, mover, allow, standing):
                how = " (standing order)" if standing and self.sees(player) else ""
                verb = "allowed" if allow else "denied"
                text = (f"{player} ({self.name(nation)}) {verb} {self.name(mover)} passage through the "
                        f"{_canal(canal)} canal{how}.")
            case FactoryDestroyed(owner, province, by):
                text = (f"{self.name(by)} destroyed {self.possessive(owner)} factory in {board.name(province)}; "
                        "the three armies left the board.")
            case FlagPlaced(nation, region, replaced):
                text = f"{self.name(nation)} placed a flag in {board.name(region)}"
                text += f", replacing {self.possessive(replaced)}." if replaced else "."
            case FlagRemoved(nation, region, occupier):
                text = (f"{self.possessive(nation)} flag in {board.name(region)} was removed: "
                        f"{self.name(occupier)} has no flag left to place.")
            case StandingChanged(player, order):
                if not self.sees(player):
                    self.flush_money()
                    return
                text = (f"{player} set a standing order: {standing_text(board, order)}." if order
                        else f"{player} cleared all standing orders.")
            case TaxCollected(nation, income, factories, flags, owed, paid, bonus):
                gov = next((m.target.owner for m in self.take(Reason.BONUS)), None)
                self.take(Reason.TAX)
                self.take(Reason.SOLDIERS_PAY)
                text = (f"{self.name(nation)} collected {income} in taxes "
                        f"({_plural(factories, 'factory', 'factories')}, {_plural(flags, 'flag')})")
                extras = []
                if owed:
                    extras.append(f"paid its soldiers {paid}" + (f" of {owed}" if paid < owed else ""))
                if bonus:
                    extras.append(f"paid {gov or 'the government'} a bonus of {bonus}")
                text += (", " + " and ".join(extras) if extras else "") + "."
            case PowerGained(nation, points, total):
                text = (f"{self.name(nation)} gained {_plural(points, 'power point')} (now {total})."
                        if points else f"{self.name(nation)} gained no power points (still {total}).")
            case FlagCardDealt(nation, player):
                text = f"{player} holds the flag card of {self.name(nation)}."
            case BondBought(player, nation, value):
                self.take(Reason.BOND)
                text = f"{player} bought {self.name(nation)} {value}."
            case BondUpgraded(player, nation, old, new):
                self.take(Reason.UPGRADE)
                text = f"{player} upgraded {self.name(nation)} {old} to {new} (paid {new - old})."
            case InvestmentPassed(player):
                text = f"{player} did not invest."
            case GovernmentChanged(nation, None, new):
                text = f"{new} forms the government of {self.name(nation)}."
            case GovernmentChanged(nation, old, new):
                text = f"{self.possessive(nation)} government passes from {old} to {new}."
            case InvestorCardPassed(old, new):
                text = f"The investor card passes from {old} to {new}." if old else f"{new} takes the investor card."
            case GameEnded(reason, scores):
                ranking = ", ".join(f"{p} {s}" for p, s in scores)
                text = f"The game is over: {reason}. Final scores: {ranking}."
                if scores:
                    text += f" {scores[0][0]} wins."
            case _:
                text = f"{event!r}"
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
