"""Eight-Minute Empire's mails as text: reports, prompts, the map, the end of the game with its arithmetic.

Plain ASCII, no line wider than 78 columns (``pbem.render.text.finish``). A
reader sees their own sealed bid and nobody else's, nor whether another has
bid, until all bids are revealed (R8-BID-1).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

from engine.eight_minute_empire.board import WILD, ActionKind, Board, Card
from engine.eight_minute_empire.events import (
    ArmiesPlaced,
    ArmyDestroyed,
    ArmyMoved,
    BidGiven,
    BidsRevealed,
    CardTaken,
    CityBuilt,
    Event,
    GameEnded,
    SeriesGameEnded,
    TurnEnded,
)
from engine.eight_minute_empire.model import NEUTRAL, NEUTRAL_ARMIES, Phase, State, Variant
from engine.eight_minute_empire.scoring import continent_owners, region_owners
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.render.art import Art, check_art, fill_panel, load_art
from pbem.render.text import bullet, finish, join_words, plural, wrap

TITLE = "EIGHT-MINUTE EMPIRE"
_VERB = {ActionKind.PLACE: "place", ActionKind.MOVE: "move", ActionKind.WATER: "move over land and water",
         ActionKind.CITY: "city", ActionKind.DESTROY: "destroy"}


def card_words(card: Card) -> str:
    """'#13 carrot: move 3 over land and water'; 'destroy 1 and place 1'; 'city or destroy 1'."""
    parts = [_VERB[a.kind] + ("" if a.kind is ActionKind.CITY else f" {a.amount}") for a in card.actions]
    good = card.good + (" x2" if card.symbols == 2 else "")
    return f"#{card.id} {good}: " + {"/": " or ", "+": " and "}.get(card.join, "").join(parts)


def banner(game: str, what: str) -> str:
    return f"{TITLE} - {game} - {what}\n" + "=" * min(78, len(TITLE) + len(game) + len(what) + 6)


def narrate(board: Board, state: State, events: Iterable[Event], viewer: str | None) -> list[str]:
    told = []
    for event in events:
        match event:
            case BidGiven(player, coins) if player == viewer:
                told.append(f"You bid {coins}; you may change it until every bid is in.")
            case BidsRevealed(bids, first, paid):
                told.append("All bids are in: " + ", ".join(f"{p} {n}" for p, n in bids) + f". {first} "
                            + (f"pays {paid} and " if paid else "") + "takes the first turn.")
            case CardTaken(player, card, place, cost, _):
                told.append(f"{player} took {card_words(board.cards[card])} from place {place} for "
                            f"{plural(cost, 'coin')}.")
            case ArmiesPlaced(player, region, count) if player == NEUTRAL:
                told.append(f"A neutral army was placed in {region}.")
            case ArmiesPlaced(player, region, count):
                told.append(f"{player} placed {plural(count, 'army', 'armies')} in {region}.")
            case ArmyMoved(player, path):
                told.append(f"{player} moved an army {'-'.join(str(r) for r in path)}.")
            case CityBuilt(player, region):
                told.append(f"{player} built a city in {region}.")
            case ArmyDestroyed(by, owner, region):
                whose = "one of their own armies" if by == owner else f"an army of {owner}"
                told.append(f"{by} destroyed {whose} in {region}.")
            case TurnEnded(_, _, following) if following is not None:
                told.append(f"It is {following}'s turn.")
            case SeriesGameEnded(number, points, carried):
                told.append(f"Game {number} of the series is over: " + ", ".join(f"{p} {n}" for p, n in points)
                            + ". The series so far: " + ", ".join(f"{p} {n}" for p, n in carried)
                            + f". Game {number + 1} begins afresh with a new bid.")
            case GameEnded(winners):
                told.append(f"The game is over: {join_words(winners)} "
                            + ("wins." if len(winners) == 1 else "share the victory."))
    return told


def goods_tally(board: Board, cards: tuple[int, ...]) -> str:
    counts = Counter[str]()
    for card_id in cards:
        card = board.cards[card_id]
        counts[card.good] += card.symbols
    return ", ".join(f"{good} {n}" for good, n in sorted(counts.items())) or "none"


def row_lines(board: Board, state: State) -> list[str]:
    lines = ["THE ROW (place, cost, card)"]
    for place, card_id in enumerate(state.row, start=1):
        lines.append(f"  {place}  cost {board.row_costs[place - 1]}  {card_words(board.cards[card_id])}")
    lines.append(f"  ({plural(len(state.deck), 'card')} left in the deck)")
    return lines


def player_lines(board: Board, state: State) -> list[str]:
    lines = ["PLAYERS (seating order)"]
    for player in state.seating:
        turn = "  <- on turn" if player == state.current else ""
        lines.append(f"  {player} ({colour_of(state, player)}): {state.coins[player]} coins, "
                     f"{plural(len(state.hands[player]), 'card')}, {state.armies_of(player)} armies and "
                     f"{state.cities_of(player)} cities on the map{turn}")
        lines.append(f"      goods: {goods_tally(board, state.hands[player])}")
    return lines


MAP_ART = ("maps", "eight-minute-empire-board.txt")
REGIONS_TABLE = "regions"


@cache
def map_art() -> Art:
    return load_art(*MAP_ART)


def check_map_art(board: Board) -> list[str]:
    """Everything that keeps the map art from drawing this map (empty when it is fine)."""
    return check_art(map_art(), REGIONS_TABLE, [str(r) for r in board.regions])


def region_tokens(state: State, region: int) -> list[str]:
    """What a region shows: each colour's armies (R3) and cities (Rc, Rc2), N for neutral armies."""
    tokens = []
    for player in state.seating:
        letter = colour_of(state, player)[0].upper()
        armies = state.armies.get(region, {}).get(player, 0)
        cities = state.cities.get(region, {}).get(player, 0)
        if armies:
            tokens.append(f"{letter}{armies}")
        if cities:
            tokens.append(f"{letter}c" + (str(cities) if cities > 1 else ""))
    neutral = state.armies.get(region, {}).get(NEUTRAL, 0)
    if neutral:
        tokens.append(f"N{neutral}")
    return tokens


def map_lines(board: Board, state: State) -> list[str]:
    """The four continents drawn with their land links, each region's pieces in place, then who controls what."""
    art = map_art()
    codes = art.codes_of(REGIONS_TABLE)
    contents = {codes[str(r)]: region_tokens(state, r) for r in board.regions}
    lines = ["THE MAP (R3: red's 3 armies, Rc: a red city, N: neutral; - | / \\ land, ~ sea)"]
    for panel in art.panels:
        filled = fill_panel(panel, contents)
        lines += ["", f"  {filled.title}", *filled.lines]
        lines += [f"  ({code[1:].lstrip('0')}: {text})" for code, text in filled.notes]
    owners = region_owners(state, board)
    continents = continent_owners(board, owners)
    held = ", ".join(f"{r} {owners[r]}" for r in sorted(owners)) or "none"
    lines += ["", wrap(f"Regions controlled: {held}.", 2), wrap("Continents controlled: "
              + (", ".join(f"{c} {p}" for c, p in sorted(continents.items())) or "none") + ".", 2)]
    return lines


def status_line(state: State) -> str:
    series = f" (game {state.game_number} of the series)" if Variant.LONG in state.setup.variants else ""
    return _status(state) + series


def _status(state: State) -> str:
    if state.phase is Phase.NEUTRAL:
        return (f"{state.current} places a neutral army ({state.neutral_armies()} of {NEUTRAL_ARMIES} "
                "placed).")
    if state.phase is Phase.BID:
        return "The bid for the first turn is open: every player bids once, sealed."
    if state.phase is Phase.OVER:
        return "The game is over."
    doing = "takes a card" if state.phase is Phase.TAKE else "uses the card's action"
    return f"{state.current} {doing}."


def report(board: Board, state: State, player: str, events: Iterable[Event], game: str, with_map: bool) -> str:
    parts = [banner(game, f"report for {player}"), ""]
    told = narrate(board, state, events, player)
    if told:
        parts += ["WHAT HAPPENED", *(bullet(t) for t in told), ""]
    parts += [wrap(status_line(state))]
    if state.phase is Phase.BID:
        own = state.bids.get(player)
        parts.append(wrap(f"Your bid: {own} (you may change it)." if own is not None else "You have not bid yet."))
    parts += ["", *row_lines(board, state), "", *player_lines(board, state)]
    if with_map:
        parts += ["", *map_lines(board, state)]
    return finish("\n".join(parts) + "\n")


def score_lines(board: Board, state: State) -> list[str]:
    lines = ["FINAL SCORES (regions + continents + goods; ties: coins, armies, regions)"]
    for rank, score in enumerate(state.scores, start=1):
        wilds = f"; wild cards counted as {join_words(score.wilds)}" if score.wilds else ""
        series = f"; the series: {state.carried[score.player]}" if state.carried else ""
        lines.append(f"  {rank}. {score.player}: {score.regions} + {score.continents} + {score.goods} = "
                     f"{score.total} points ({score.coins} coins, {score.armies} armies){wilds}{series}")
    return lines


def game_end(board: Board, state: State, player: str | None, events: Iterable[Event], game: str) -> str:
    told = narrate(board, state, events, player)
    parts = [banner(game, "the game is over"), "", *(bullet(t) for t in told), "", *score_lines(board, state),
             "", *map_lines(board, state)]
    return finish("\n".join(parts) + "\n")


def options(board: Board, state: State, player: str) -> list[str]:
    """Orders the player could send now, one per line (the bot reads these)."""
    if state.phase is Phase.NEUTRAL:
        return [f"NEUTRAL {r}" for r in (1, 5, 9, 13, 17, 21, 25)]
    if state.phase is Phase.BID:
        coins = state.coins[player]
        return [f"BID {n}" for n in sorted({0, 1, min(2, coins), coins // 2, coins}) if n <= coins]
    if state.phase is Phase.TAKE:
        return [f"TAKE {i + 1}" for i in range(len(state.row)) if board.row_costs[i] <= state.coins[player]]
    in_play = state.in_play
    assert in_play is not None
    mine = sorted(r for r, here in state.armies.items() if here.get(player))
    examples = []
    for index, (action, left) in enumerate(zip(board.cards[in_play.card].actions, in_play.left, strict=True)):
        if left <= 0 or (in_play.chosen is not None and in_play.chosen != index):
            continue
        if action.kind is ActionKind.PLACE:
            spots = sorted({board.start} | {r for r, here in state.cities.items() if here.get(player)})
            examples += [f"PLACE {r}" for r in spots]
        elif action.kind in (ActionKind.MOVE, ActionKind.WATER):
            water = action.kind is ActionKind.WATER
            examples += [f"MOVE {r}-{n}" for r in mine[:3] for n in sorted(board.neighbours(r, water=water))[:3]]
        elif action.kind is ActionKind.CITY:
            examples += [f"CITY {r}" for r in mine]
        else:
            examples += [f"DESTROY {p} {r}" for r, here in sorted(state.armies.items()) for p in sorted(here)
                         if p != player][:6]
    return [*examples, "DONE"]


def prompt(board: Board, state: State, player: str, game: str, deadline: str | None) -> str | None:
    if state.phase is Phase.OVER:
        return None
    if state.phase is Phase.BID:
        if player in state.bids:
            return None
        ask = (f"Bid coins for the first turn: 0 to {state.coins[player]}. The highest bid pays and starts; "
               "nobody sees your bid before all are in.")
    elif player != state.current:
        return None
    elif state.phase is Phase.NEUTRAL:
        ask = "Place a neutral army in any region (two-player variant): NEUTRAL and the region."
    elif state.phase is Phase.TAKE:
        ask = "Take a card from the row: you pay its place's cost. Then use its action in the same reply."
    else:
        assert state.in_play is not None
        card = board.cards[state.in_play.card]
        left = ", ".join(f"{_VERB[a.kind]} {n}" for a, n in zip(card.actions, state.in_play.left, strict=True) if n)
        ask = f"Use your card {card_words(card)} (left: {left or 'nothing'}), then DONE."
    due = f" Please answer by {deadline}." if deadline else ""
    parts = [banner(game, f"{player}, your move"), "", wrap(ask + due), "", "Your options:"]
    parts += [f"    {line}" for line in options(board, state, player)]
    parts += ["", *row_lines(board, state)]
    return finish("\n".join(parts) + "\n")


def _wild_cards(board: Board, cards: tuple[int, ...], wilds: tuple[str, ...]) -> dict[str, str]:
    """Which wild card counted as which good (R8-SCORE-4), card id -> good."""
    ids = [c for c in cards if board.cards[c].good == WILD]
    return {str(card): good for card, good in zip(ids, wilds, strict=False)}


def state_json(board: Board, state: State, name: str, kind: str) -> dict[str, Any]:
    """Everything public (docs/state-json.md): never the deck's order, never a bid before all are revealed."""
    scores = {s.player: s for s in state.scores}

    def score(player: str) -> dict[str, Any] | None:
        s = scores.get(player)
        if s is None:
            return None
        return {"regions": s.regions, "continents": s.continents, "goods": s.goods, "total": s.total,
                "wild": _wild_cards(board, state.hands[player], s.wilds)}

    return {
        "game": name, "kind": kind, "version": state.version, "finished": state.finished,
        "row": [{"place": i + 1, "cost": board.row_costs[i], "card": card} for i, card in enumerate(state.row)],
        "deck": len(state.deck), "age_order": list(state.ages), "first_player": state.first,
        "bids": dict(state.revealed) if state.revealed else None,
        "neutral": {str(r): here[NEUTRAL] for r, here in sorted(state.armies.items()) if here.get(NEUTRAL)},
        "phase": state.phase.value, "current": state.current,
        "game_number": state.game_number, "series": dict(state.carried) or None,
        "players": {p: {"email": seat.email, "colour": colour_of(state, p), "coins": state.coins[p],
                        "cards": list(state.hands[p]),
                        "armies": {str(r): here[p] for r, here in sorted(state.armies.items()) if here.get(p)},
                        "cities": {str(r): here[p] for r, here in sorted(state.cities.items()) if here.get(p)},
                        "score": score(p)}
                    for p, seat in zip(state.seating, state.setup.players, strict=True)},
        "winners": list(state.winners) if state.finished else None,
    }
