"""Eight-Minute Empire's mails as text: reports, prompts, the map, the end of the game with its arithmetic.

Plain ASCII, no line wider than 78 columns (``pbem.render.text.finish``). A
reader sees their own sealed bid and nobody else's, nor whether another has
bid, until all bids are revealed (R8-BID-1).
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from engine.eight_minute_empire.board import WILD, Board
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
from engine.eight_minute_empire.model import NEUTRAL, NEUTRAL_ARMIES, Phase, Score, State, Variant
from engine.eight_minute_empire.scoring import continent_owners, final_scores, region_owners, symbols_of
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.games.eight_minute_empire.scoresheet import score_sheet
from pbem.games.eight_minute_empire.words import banner, card_words, row_lines
from pbem.render.art import Art, check_art, fill_panel, load_art
from pbem.render.samestate import same_objects
from pbem.render.text import bullet, finish, join_words, plural, wrap


def _who(player: str, viewer: str | None) -> str:
    """A player as the reader is told of them: 'You' to themselves (every sentence starts with its actor)."""
    return "You" if player == viewer else player


def narrate(board: Board, state: State, events: Iterable[Event], viewer: str | None) -> list[str]:
    """Sentences ``viewer`` may read (a sealed bid only to its bidder, R8-BID-1), addressed to them."""
    return [line for event in events if (line := _sentence(board, event, viewer))]


def _sentence(board: Board, event: Event, viewer: str | None) -> str | None:
    match event:
        case BidGiven(player, coins):
            return (f"Your bid of {coins} is recorded; you may change it until all bids are in."
                    if player == viewer else None)
        case BidsRevealed(bids, first, paid):
            shown = ", ".join(f"{'you' if p == viewer else p} {n}" for p, n in bids)
            pays = f"pay{'' if first == viewer else 's'} {paid} and " if paid else ""
            takes = "take" if first == viewer else "takes"
            return f"All bids are in: {shown}. {_who(first, viewer)} {pays}{takes} the first turn."
        case CardTaken(player, card, place, cost):
            return (f"{_who(player, viewer)} took {card_words(board.cards[card])} from place {place} for "
                    f"{plural(cost, 'coin')}.")
        case ArmiesPlaced(player, region, count) if player == NEUTRAL:
            return f"A neutral army was placed in {region}."
        case ArmiesPlaced(player, region, count):
            return f"{_who(player, viewer)} placed {plural(count, 'army', 'armies')} in {region}."
        case ArmyMoved(player, path):
            return f"{_who(player, viewer)} moved an army {'-'.join(str(r) for r in path)}."
        case CityBuilt(player, region):
            return f"{_who(player, viewer)} built a city in {region}."
        case ArmyDestroyed(by, owner, region):
            whose = ("your own armies" if by == viewer else "their own armies") if by == owner else (
                "your armies" if owner == viewer else f"the armies of {owner}")
            return f"{_who(by, viewer)} destroyed one of {whose} in {region}."
        case TurnEnded(_, _, following) if following is not None:
            return "It is your turn." if following == viewer else f"It is {following}'s turn."
        case SeriesGameEnded(number, points, carried):
            return (f"Game {number} of the series is over: " + ", ".join(f"{p} {n}" for p, n in points)
                    + ". The series so far: " + ", ".join(f"{p} {n}" for p, n in carried)
                    + f". Game {number + 1} begins afresh with a new bid.")
        case GameEnded(winners):
            return (f"The game is over: {join_words(winners)} "
                    + ("wins." if len(winners) == 1 else "share the victory."))
    return None


def goods_tally(board: Board, cards: tuple[int, ...]) -> str:
    counts = symbols_of(board, cards)
    return ", ".join(f"{good} {n}" for good, n in sorted(counts.items())) or "none"


def player_lines(board: Board, state: State, viewer: str | None = None) -> list[str]:
    """Each player's coins, cards, pieces, goods and points if the game ended now (all public, R8-PIECE-3)."""
    scores = _scores_now(board, state)
    lines = ["PLAYERS (seating order; * on turn; points if the game ended now)"]
    for player in state.seating:
        you = ", you" if player == viewer else ""
        turn = "* " if player == state.current else "  "
        now = scores[player]
        lines.append(wrap(f"{player} ({colour_of(state, player)}{you}): {plural(state.coins[player], 'coin')}, "
                          f"{plural(len(state.hands[player]), 'card')}; on the map "
                          f"{plural(state.armies_of(player), 'army', 'armies')}, "
                          f"{plural(state.cities_of(player), 'city', 'cities')}", 6, turn))
        lines.append(wrap(f"goods: {goods_tally(board, state.hands[player])}; points now: {now.regions} + "
                          f"{now.continents} + {now.goods} = {now.total}", 6, 6))
    return lines


@same_objects  # the same for every seat's report of a move: worked out once
def _scores_now(board: Board, state: State) -> dict[str, Score]:
    return {score.player: score for score in final_scores(state, board)[0]}


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


@same_objects  # every seat's report of a move shows the same map
def map_lines(board: Board, state: State) -> tuple[str, ...]:
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
    return tuple(lines)


def status_line(state: State, viewer: str | None = None) -> str:
    series = f" (game {state.game_number} of the series)" if Variant.LONG in state.setup.variants else ""
    return _status(state, viewer) + series


def _status(state: State, viewer: str | None) -> str:
    you = state.current is not None and state.current == viewer
    if state.phase is Phase.NEUTRAL:
        return (f"{'You place' if you else f'{state.current} places'} a neutral army "
                f"({state.neutral_armies()} of {NEUTRAL_ARMIES} placed).")
    if state.phase is Phase.BID:
        return "The bid for the first turn is open: every player bids once, sealed."
    if state.phase is Phase.OVER:
        return "The game is over."
    if state.phase is Phase.TAKE:
        return "You take a card." if you else f"{state.current} takes a card."
    return "You use your card's action." if you else f"{state.current} uses the card's action."


def report(board: Board, state: State, player: str, events: Iterable[Event], game: str, with_map: bool) -> str:
    parts = [banner(game, f"report for {player}"), ""]
    told = narrate(board, state, events, player)
    if told:
        parts += ["WHAT HAPPENED", *(bullet(t) for t in told), ""]
    parts += [wrap(status_line(state, player))]
    if state.phase is Phase.BID:
        own = state.bids.get(player)
        parts.append(wrap(f"Your bid: {own} (you may change it)." if own is not None else "You have not bid yet."))
    parts += ["", *row_lines(board, state), "", *player_lines(board, state, player)]
    if with_map:
        parts += ["", *map_lines(board, state)]
    return finish("\n".join(parts) + "\n")


def score_lines(board: Board, state: State) -> list[str]:
    """The final scores in a line each (the demo's ending; the mail has the whole sheet)."""
    lines = ["FINAL SCORES (regions + continents + goods; ties: coins, armies, regions)"]
    for rank, score in enumerate(state.scores, start=1):
        wilds = f"; wild cards counted as {join_words(score.wilds)}" if score.wilds else ""
        series = f"; the series: {state.carried[score.player]}" if state.carried else ""
        lines.append(f"  {rank}. {score.player}: {score.regions} + {score.continents} + {score.goods} = "
                     f"{plural(score.total, 'point')} ({plural(score.coins, 'coin')}, "
                     f"{plural(score.armies, 'army', 'armies')}){wilds}{series}")
    return lines


def game_end(board: Board, state: State, player: str | None, events: Iterable[Event], game: str) -> str:
    told = narrate(board, state, events, player)
    parts = [banner(game, "the game is over"), "", *(bullet(t) for t in told), "", *score_sheet(board, state),
             "", *map_lines(board, state)]
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
