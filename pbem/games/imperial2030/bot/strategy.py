"""How a bot decides: the text of a prompt in, the text of its answer out. Pure: no mail, no clock.

:func:`decide` reads a prompt (``pbem.games.imperial2030.bot.reading``) and returns the order
lines to mail back; :func:`decide_after_refusal` does the same for an error
reply, choosing among its ``Legal now`` orders and avoiding what was refused.
Two strategies:

``random``
    seeded random play among the listed options (imports and production
    combine a random number of single options, maneuvers move a random set of
    units and end with ``DONE``), like ``engine.imperial2030.randomplay`` but from the text.
``sensible``
    a simple player that finishes games: it taxes when its income (2 per
    factory, 1 per flag) reaches a column that gains power, builds factories
    when the treasury allows, produces and imports while it has few units,
    maneuvers when it has units, towards unflagged neutral regions, invests in
    the nation it governs or in the best interest it can afford, and never
    pays for a rondel move it does not need.

What the bot knows is what a player reads: the prompt and, when it has one,
the latest report of the game (the ``NATIONS`` table with flags and
factories, who governs what, its cash). The static map (``maps/``) tells sea
from land and home provinces from neutral ones. Randomness comes only from
the ``rng`` passed in; :func:`decision_rng` derives one per decision from the
bot's seed, the game and the move, so the same game is played the same way
whatever the order in which mail arrives.
"""
from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable, Sequence

from pbem.games.imperial2030.bot.maneuvers import random_maneuver, sensible_battle, sensible_maneuver
from pbem.games.imperial2030.bot.pieces import (
    BOND_RE,
    COST_RE,
    INTEREST_RE,
    NO_CONTEXT,
    TREASURY_COST_RE,
    BotError,
    Context,
    int_of,
    last_resort,
    map_board,
    nation_ids,
    nation_of_title,
    normal,
    open_options,
    random_rondel,
    random_single,
    row_of,
    treasury_of,
)
from pbem.games.imperial2030.bot.reading import (
    NationRow,
    Option,
    Prompt,
    PromptDecision,
    Refusal,
    kind_of,
    parse_prompt,
    parse_refusal,
    parse_report,
)
from pbem.games.optionsblock import split_option

STRATEGIES = ("random", "sensible")

# --- the entry points ----------------------------------------------------------------------------


def decision_rng(seed: int | str, *parts: object) -> random.Random:
    """A generator for one decision: the same seed, game and move always give the same choices."""
    key = "\x1f".join(str(p) for p in (seed, *parts))
    return random.Random(zlib.crc32(key.encode("utf-8")) ^ (len(key) << 32))


def decide(
    prompt_text: str,
    strategy: str = "random",
    *,
    rng: random.Random | None = None,
    seed: int | str = 0,
    report_text: str | None = None,
    avoid: Sequence[str] = (),
    attempt: int = 0,
) -> str:
    """The answer (one or more order lines) to the prompt ``prompt_text``.

    Raises :class:`BotError` when the text asks nothing (no ``Your options:``).
    """
    prompt = parse_prompt(prompt_text)
    if prompt.decision is None or not prompt.decision.options:
        raise BotError("this mail asks nothing: no 'Your options:' block")
    report = parse_report(report_text) if report_text else parse_report(prompt_text)
    if rng is None:
        rng = decision_rng(seed, prompt.game, prompt.reader, prompt.version, attempt)
    return choose(prompt, strategy, rng, Context(report, frozenset(a.upper() for a in avoid), attempt))


def decide_after_refusal(
    error_text: str,
    last_prompt_text: str | None = None,
    strategy: str = "random",
    *,
    rng: random.Random | None = None,
    seed: int | str = 0,
    report_text: str | None = None,
    avoid: Sequence[str] = (),
    attempt: int = 1,
) -> str | None:
    """Another answer after the error reply ``error_text``; None when the game no longer waits for us.

    The options are the error's ``Legal now`` orders (else the last prompt's),
    minus the refused line and ``avoid``. The more attempts, the plainer the
    answer: a maneuver ends (``DONE``), imports and production take the
    simplest order, and from the third retry on the default or first option.
    """
    refusal = parse_refusal(error_text)
    if not refusal.waits_for_reader:
        return None
    refused = {a.upper() for a in avoid}
    if refusal.refused:
        refused.add(refusal.refused.upper())
    previous = parse_prompt(last_prompt_text) if last_prompt_text else None
    decision = _decision_from_refusal(refusal, previous)
    if decision is None:
        return None
    prompt = Prompt(refusal.game, refusal.reader, previous.version if previous else None, None, (decision,),
                    previous.cash if previous else None, previous.treasuries if previous else {})
    report = parse_report(report_text) if report_text else None
    if rng is None:
        rng = decision_rng(seed, refusal.game, refusal.reader, "retry", attempt, refusal.refused)
    return choose(prompt, strategy, rng, Context(report, frozenset(refused), max(1, attempt)))


_UP_TO_RE = re.compile(r"^(?P<keyword>[A-Za-z]+) up to (?P<limit>\d+) of: (?P<items>.+)$", re.IGNORECASE)


def _legal_options(lines: Sequence[str]) -> tuple[tuple[Option, ...], str]:
    """The orders of a ``Legal now`` list, and a combine note; the engine's own wording made into orders.

    ``import up to 3 of: army Paris, fleet London`` lists single imports,
    ``import nothing`` is ``IMPORT``, ``donate up to …`` is no answer to a decision.
    """
    options: list[Option] = []
    combine = ""
    for line in lines:
        text = line.strip()
        match = _UP_TO_RE.match(text)
        if match:
            keyword = match.group("keyword").upper()
            if keyword == "DONATE":
                continue
            combine = f"Combine up to {match.group('limit')} in one order."
            options += [Option(f"{keyword} {item.strip()}") for item in match.group("items").split(",") if item.strip()]
        elif text.lower() == "import nothing":
            options.append(Option("IMPORT", "import nothing"))
        elif text.lower().startswith("donate "):
            continue
        else:
            options.append(Option(*split_option(text)))
    return tuple(options), combine


def _decision_from_refusal(refusal: Refusal, previous: Prompt | None) -> PromptDecision | None:
    if refusal.legal:
        options, combine = _legal_options(refusal.legal)
        if not options:
            return previous.decision if previous is not None else None
        kind = kind_of("", tuple(o.keyword for o in options))
        if previous is not None and previous.decision is not None and previous.decision.kind == kind:
            old = previous.decision
            return PromptDecision(old.title, old.about, options, combine or old.combine, (), old.default)
        return PromptDecision("", "", options, combine)
    if previous is not None and previous.decision is not None:
        return previous.decision
    return None


def choose(prompt: Prompt, strategy: str, rng: random.Random, context: Context = NO_CONTEXT) -> str:
    """The answer to the first decision of ``prompt`` by ``strategy`` (``random`` or ``sensible``)."""
    decision = prompt.decision
    if decision is None or not decision.options:
        raise BotError("nothing to decide")
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; strategies: {', '.join(STRATEGIES)}")
    kind = decision.kind
    if context.attempt >= 3:
        return last_resort(decision, context)
    chooser = _CHOOSERS.get((strategy, kind)) or _CHOOSERS.get(("random", kind)) or random_single
    answer = chooser(prompt, decision, rng, context)
    return answer


# --- rondel ----------------------------------------------------------------------------------------


def _space_action(option: Option) -> str:
    """``production``, ``maneuver``, ``taxation`` … for a rondel option (its detail starts with the action)."""
    head = option.detail.split(",")[0].strip().lower()
    if head:
        return head
    word = option.order.split()[-1].lower()
    return word.split("_")[0]


def _power_points(income: int) -> int:
    tables = map_board().tables
    return tables.tax_columns[tables.tax_column_index(min(tables.tax_maximum, income))].power_points


def _sensible_rondel(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    nation = nation_of_title(decision.title)
    row = row_of(context.report, nation)
    treasury = treasury_of(prompt, nation, row)
    tables = map_board().tables
    factories = row.factories if row else 2
    flags = row.flags if row else 0
    units = (row.armies + row.fleets) if row else 0
    treasury = treasury if treasury is not None else 5
    income = 2 * factories + flags
    homes = len(map_board().homes.get(nation or "", ())) if nation else 4
    scores: list[tuple[float, float, str]] = []
    for option in decision.options:
        if option.order.upper() in context.avoid:
            continue
        action = _space_action(option)
        cost = int_of(COST_RE, option.detail)
        if action == "taxation":
            value = 3.0 * _power_points(income) + (1.0 if income >= 6 else -1.0) + 0.3 * flags
        elif action == "factory":
            value = 7.0 if treasury >= tables.factory_cost and factories < homes else -2.0
        elif action == "production":
            value = 1.5 * factories if units < 3 * factories else 0.5
        elif action == "maneuver":
            value = 1.6 * min(units, 6) if units else -3.0
        elif action == "import":
            value = 3.5 if treasury >= 3 and units < 6 else -1.0
        elif action == "investor":
            value = 1.5
        else:
            value = 0.0
        value -= 1.5 * cost
        scores.append((value, rng.random(), option.order))
    if not scores:
        return random_single(prompt, decision, rng, context)
    chosen = max(scores)[2]
    follow = _follow_up(decision, chosen, nation, row, treasury)
    return f"{chosen}\n{follow}" if follow and not context.attempt else chosen


def _follow_up(decision: PromptDecision, chosen: str, nation: str | None, row: NationRow | None,
               treasury: int | None) -> str | None:
    """The action's order to send with a rondel move, so that one mail plays the whole turn.

    Production needs no choice (``PRODUCE``); an import is planned from the
    map (armies into home provinces, a fleet into a port when the nation has
    none); a factory is the one the prompt's example builds (examples are
    tried on the engine, so it is affordable). Should the order be refused,
    the rondel move stands and the moderator prompts for the action.
    """
    option = next((o for o in decision.options if o.order == chosen), None)
    if option is None:
        return None
    action = _space_action(option)
    if action == "production":
        return "PRODUCE"
    if action == "factory":
        for example in decision.examples:
            if len(example) > 1 and example[0] == chosen and example[1].upper().startswith("BUILD "):
                return example[1]
        return None
    if action == "import" and nation is not None and treasury is not None:
        board = map_board()
        count = min(board.tables.import_max_units, max(0, treasury - 2))  # the rondel's cost is paid in cash
        if count <= 0:
            return None
        homes = list(board.homes.get(nation, ()))
        limits = board.tables.unit_limits.get(nation)
        units: list[str] = []
        if row is not None and limits is not None and row.fleets == 0 and row.fleets < limits.fleets:
            ports = [h for h in homes if board.regions[h].port]
            if ports:
                units.append(f"fleet {board.name(ports[0])}")
        room = (limits.armies - row.armies) if (row is not None and limits is not None) else count
        for home in homes:
            if len(units) >= count or room <= 0:
                break
            units.append(f"army {board.name(home)}")
            room -= 1
        return "IMPORT " + ", ".join(units[:count]) if units else None
    return None


# --- factory, production, import -----------------------------------------------------------------------


def _sensible_factory(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    nation = nation_of_title(decision.title)
    treasury = treasury_of(prompt, nation, row_of(context.report, nation))
    builds = [o for o in decision.options if o.keyword == "BUILD" and o.order.upper() not in context.avoid]
    affordable = [o for o in builds if treasury is None or int_of(TREASURY_COST_RE, o.detail) <= treasury]
    if affordable:
        armaments = [o for o in affordable if "armaments" in o.detail]
        return (armaments or affordable)[0].order
    return "PASS"


def _random_production(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    singles = [o.order.split(" ", 1)[1] for o in decision.options if len(o.order.split()) > 1]
    if context.attempt or not singles or rng.random() < 0.7:
        return "PRODUCE"
    chosen = rng.sample(singles, rng.randint(1, len(singles)))
    return "PRODUCE " + ", ".join(chosen)


def _sensible_production(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    return "PRODUCE"


def _import_units(decision: PromptDecision) -> list[str]:
    return [o.order.split(" ", 1)[1] for o in decision.options if o.keyword == "IMPORT" and len(o.order.split()) > 1]


def _random_import(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    """A random number of random units, within the treasury and (when a report tells) the units left in supply."""
    units = _import_units(decision)
    nation = nation_of_title(decision.title)
    row = row_of(context.report, nation)
    treasury = treasury_of(prompt, nation, row)
    most = min(decision.limit, treasury if treasury is not None else decision.limit, len(units) and decision.limit)
    if context.attempt:
        most = min(most, 1)
    room = _supply_room(nation, row)
    picked: list[str] = []
    for _ in range(rng.randint(0, max(0, most))):
        choices = [u for u in units if room.get(u.split()[0].lower(), 1) > 0]
        if not choices:
            break
        unit = rng.choice(choices)
        kind = unit.split()[0].lower()
        if kind in room:
            room[kind] -= 1
        picked.append(unit)
    return "IMPORT " + ", ".join(picked) if picked else "IMPORT"


def _supply_room(nation: str | None, row: NationRow | None) -> dict[str, int]:
    """Armies and fleets the nation may still place (its supply), when the report tells its units; else nothing."""
    limits = map_board().tables.unit_limits.get(nation or "")
    if row is None or limits is None:
        return {}
    return {"army": max(0, limits.armies - row.armies), "fleet": max(0, limits.fleets - row.fleets)}


def _sensible_import(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    units = _import_units(decision)
    nation = nation_of_title(decision.title)
    row = row_of(context.report, nation)
    treasury = treasury_of(prompt, nation, row)
    if not units or treasury is None:
        return "IMPORT"
    count = min(decision.limit, max(0, treasury - 2))
    limits = map_board().tables.unit_limits.get(nation or "")
    armies = [u for u in units if u.lower().startswith("army")]
    fleets = [u for u in units if u.lower().startswith("fleet")]
    if row is not None and limits is not None:
        room_armies = max(0, limits.armies - row.armies)
        room_fleets = max(0, limits.fleets - row.fleets)
    else:
        room_armies = room_fleets = decision.limit
    if context.attempt:
        count = min(count, 1)
    picked: list[str] = []
    want_fleet = bool(fleets) and room_fleets > 0 and (row is None or row.fleets < max(1, row.armies // 3))
    for index in range(count):
        if want_fleet and room_fleets > 0 and (index == 0 or not armies or room_armies <= 0):
            picked.append(fleets[index % len(fleets)])
            room_fleets -= 1
            want_fleet = False
        elif armies and room_armies > 0:
            picked.append(armies[index % len(armies)])
            room_armies -= 1
        elif fleets and room_fleets > 0:
            picked.append(fleets[index % len(fleets)])
            room_fleets -= 1
    return "IMPORT " + ", ".join(picked) if picked else "IMPORT"


# --- investment ----------------------------------------------------------------------------------------


def _random_invest(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    orders = open_options(decision, context)
    buys = [o for o in orders if o.upper() != "PASS"]
    if not buys or rng.random() < 0.3:
        return "PASS" if "PASS" in (o.upper() for o in decision.all_orders()) else rng.choice(orders)
    return rng.choice(buys)


def _sensible_invest(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    report = context.report
    governed = {nation_ids().get(normal(n)) for n in report.governs} if report else set()
    cash = prompt.cash if prompt.cash is not None else (report.cash if report else None)
    best: tuple[float, float, str] | None = None
    for option in decision.options:
        if option.keyword not in ("BUY", "UPGRADE") or option.order.upper() in context.avoid:
            continue
        cost = int_of(COST_RE, option.detail)
        if cash is not None and cost > cash:
            continue
        match = INTEREST_RE.search(option.detail)
        gain = 0
        if match:
            gain = int(match.group("b")) - int(match.group("a")) if match.group("b") else int(match.group("a"))
        bond = BOND_RE.match(option.order)
        nation = nation_ids().get(normal((bond.group("nation") or bond.group("unation")) if bond else ""))
        row = row_of(report, nation)
        multiplier = max(1, row.multiplier) if row else 1
        value = gain * (1.0 + 0.5 * multiplier) - 0.15 * cost
        if nation in governed:
            value += 2.5
        if "you would" in option.detail:  # form or take over its government
            value += 3.0
        if decision.kind == "setup_bond":
            value = gain + (1.0 if cost <= (cash or cost) // 2 else 0.0)
        candidate = (value, rng.random(), option.order)
        if best is None or candidate > best:
            best = candidate
    if best is None or best[0] <= 0:
        return "PASS"
    return best[2]


def _prefer(*orders: str) -> Callable[[Prompt, PromptDecision, random.Random, Context], str]:
    def chooser(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
        open_orders = open_options(decision, context)
        for wanted in orders:
            for order in open_orders:
                if order.upper() == wanted:
                    return order
        return rng.choice(open_orders)
    return chooser


_CHOOSERS: dict[tuple[str, str], Callable[[Prompt, PromptDecision, random.Random, Context], str]] = {
    ("random", "rondel"): random_rondel,
    ("random", "production"): _random_production,
    ("random", "import"): _random_import,
    ("random", "investment"): _random_invest,
    ("random", "setup_bond"): _random_invest,
    ("random", "maneuver"): random_maneuver,
    ("sensible", "rondel"): _sensible_rondel,
    ("sensible", "factory"): _sensible_factory,
    ("sensible", "production"): _sensible_production,
    ("sensible", "import"): _sensible_import,
    ("sensible", "investment"): _sensible_invest,
    ("sensible", "setup_bond"): _sensible_invest,
    ("sensible", "maneuver"): sensible_maneuver,
    ("sensible", "battle"): sensible_battle,
    ("sensible", "canal"): _prefer("ALLOW"),
    ("sensible", "force_stop"): _prefer("NO FORCE"),
}


__all__ = [
    "BotError",
    "Context",
    "STRATEGIES",
    "choose",
    "decide",
    "decide_after_refusal",
    "decision_rng",
]


