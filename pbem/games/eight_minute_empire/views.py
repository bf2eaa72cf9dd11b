"""Eight-Minute Empire's mails: reports, the map, the end of the game, laid out by ``templates/eight_minute_empire``.

Plain ASCII, no line wider than 78 columns (``pbem.render.env.render``). A
reader sees their own sealed bid and nobody else's, nor whether another has
bid, until all bids are revealed (R8-BID-1): ``viewmodels.told`` leaves out
what the reader may not read. The words are all in the templates; this
module gathers the facts into typed views (``viewmodels``) and draws the
map's grid of cells from the art in ``maps/``, which is pure layout.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from engine.eight_minute_empire.board import WILD, Board
from engine.eight_minute_empire.events import Event
from engine.eight_minute_empire.model import NEUTRAL, Phase, Score, State
from engine.eight_minute_empire.scoring import continent_owners, final_scores, region_owners
from pbem.games.eight_minute_empire.cardtext import row_text
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.games.eight_minute_empire.scoresheet import score_sheet
from pbem.games.eight_minute_empire.viewmodels import (
    MapView,
    PlayerView,
    StatusView,
    Told,
    goods_held,
    render_part,
    say,
    status_view,
    told,
)
from pbem.render.art import Art, check_art, fill_panel, load_art
from pbem.render.env import render
from pbem.render.identitycache import same_objects


def narrate(board: Board, state: State, events: Iterable[Event], viewer: str | None) -> list[str]:
    """Sentences ``viewer`` may read (a sealed bid only to its bidder, R8-BID-1), addressed to them."""
    return [say("_narration", "sentence", t) for t in told(board, events, viewer)]


def player_views(board: Board, state: State, viewer: str | None = None) -> tuple[PlayerView, ...]:
    scores = _scores_now(board, state)
    return tuple(PlayerView(p, colour_of(state, p), p == viewer, p == state.current, state.coins[p],
                            len(state.hands[p]), state.armies_of(p), state.cities_of(p),
                            goods_held(board, state.hands[p]), scores[p]) for p in state.seating)


def player_lines(board: Board, state: State, viewer: str | None = None) -> list[str]:
    """Each player's coins, cards, pieces, goods and points if the game ended now (all public, R8-PIECE-3)."""
    return render_part("_players", players=player_views(board, state, viewer)).split("\n")


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


def map_view(board: Board, state: State) -> MapView:
    art = map_art()
    codes = art.codes_of(REGIONS_TABLE)
    contents = {codes[str(r)]: region_tokens(state, r) for r in board.regions}
    panels = []
    for panel in art.panels:
        filled = fill_panel(panel, contents)
        panels.append(replace(filled, notes=tuple((code[1:].lstrip("0"), text) for code, text in filled.notes)))
    owners = region_owners(state, board)
    continents = continent_owners(board, owners)
    return MapView(tuple(panels), tuple(sorted(owners.items())), tuple(sorted(continents.items())))


@same_objects  # every seat's report of a move shows the same map
def map_text(board: Board, state: State) -> str:
    """The four continents drawn with their land links, each region's pieces in place, then who controls what."""
    return render_part("_map", map=map_view(board, state))


def map_lines(board: Board, state: State) -> tuple[str, ...]:
    return tuple(map_text(board, state).split("\n"))


def status_line(state: State, viewer: str | None = None) -> str:
    return say("_words", "status", status_view(state, viewer))


@dataclass(frozen=True, slots=True)
class ReportView:
    """One player's report: what happened that they may read, where the game stands, their own sealed bid."""

    game: str
    player: str
    told: tuple[Told, ...]
    status: StatusView
    own_bid: int | None


def report(board: Board, state: State, player: str, events: Iterable[Event], game: str, with_map: bool, *,
           with_prompt: bool = False) -> str:
    """The report; ``with_prompt``: below the player's prompt, which shows the row when a card is to be taken
    (``prompts.prompt``), so the report leaves the row out then: a mail shows it once."""
    view = ReportView(game, player, told(board, events, player), status_view(state, player), state.bids.get(player))
    row_shown = with_prompt and state.phase is Phase.TAKE and player == state.current
    return render("eight_minute_empire/report.j2", report=view, row_text="" if row_shown else row_text(board, state),
                  players_text=render_part("_players", players=player_views(board, state, player)),
                  map_text=map_text(board, state) if with_map else "")


def score_lines(board: Board, state: State) -> list[str]:
    """The final scores in a line each (the demo's ending; the mail has the whole sheet)."""
    return render_part("_scores", scores=state.scores, carried=dict(state.carried)).split("\n")


def game_end(board: Board, state: State, player: str | None, events: Iterable[Event], game: str) -> str:
    return render("eight_minute_empire/game_end.j2", game=game, told=told(board, events, player),
                  sheet_text="\n".join(score_sheet(board, state)), map_text=map_text(board, state))


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
