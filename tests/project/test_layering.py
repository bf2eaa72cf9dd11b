"""The layers of the code and the seam between the moderator and its games, checked from the source.

Layers (ARCHITECTURE), top to bottom: the CLI, the demo and its bots, the
daemon (transport), the moderator core, the configuration, then games, store,
mail and rendering, the shared foundations and the engine; a module imports
its own layer or lower ones only. No import of a project module hides in a
function (where it would close a circle no one sees), and no two modules need
each other, directly or round about. The seam (ARCHITECTURE: "One moderator,
several games"): the moderator core names no game's modules, a game names no
part of the moderator core, the engine does no I/O layer imports at all, and
``engine.core`` knows no game."""
from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE_GAMES = sorted(p.name for p in (ROOT / "engine").iterdir() if p.is_dir() and (p / "__init__.py").exists()
                      and p.name != "core")
PBEM_GAMES = sorted(p.name for p in (ROOT / "pbem" / "games").iterdir() if p.is_dir()
                    and (p / "__init__.py").exists())
# What a game's own modules may use of the moderator's package: the seam itself and the shared text tools.
GAME_MAY_USE = ("pbem.games", "pbem.render", "pbem.errors", "pbem.languages")


def modules(folder: str) -> dict[str, set[str]]:
    """Source file (relative) -> the modules it imports (absolute names; relative imports resolved)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        relative = path.relative_to(ROOT)
        package = ".".join(relative.with_suffix("").parts[:-1])
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names)
        found[str(relative)] = names
    return found


def game_of(name: str) -> str | None:
    """The game a module belongs to ('imperial2030'), or None for the moderator and the shared engine."""
    parts = name.split(".")
    if parts[0] == "engine" and len(parts) > 1 and parts[1] in ENGINE_GAMES:
        return parts[1]
    if parts[:2] == ["pbem", "games"] and len(parts) > 2 and parts[2] in PBEM_GAMES:
        return parts[2]
    return None


def file_game(path: str) -> str | None:
    return game_of(path.removesuffix(".py").replace("/", "."))


def is_within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_there_are_games_on_both_sides_of_the_seam() -> None:
    assert "imperial2030" in ENGINE_GAMES and "imperial2030" in PBEM_GAMES


@pytest.mark.slow
def test_the_moderator_core_imports_no_games_modules() -> None:
    """Outside engine/<kind>/ and pbem/games/<kind>/ nothing names a game's modules: the registry finds them."""
    offenders = [f"{path}: {name}" for folder in ("pbem", "engine") for path, names in modules(folder).items()
                 if file_game(path) is None for name in sorted(names) if game_of(name) is not None]
    assert offenders == []


def test_engine_core_imports_no_game_and_no_moderator() -> None:
    offenders = [f"{path}: {name}" for path, names in modules("engine/core").items() for name in sorted(names)
                 if game_of(name) is not None or is_within(name, ("pbem",))]
    assert offenders == []


def test_no_engine_imports_the_moderator() -> None:
    offenders = [f"{path}: {name}" for path, names in modules("engine").items() for name in sorted(names)
                 if is_within(name, ("pbem", "jinja2", "sqlmodel", "sqlalchemy", "typer"))]
    assert offenders == []


def test_a_game_imports_no_part_of_the_moderator_core() -> None:
    """A game kind uses the seam (pbem.games), the shared text tools and errors; never the store, mail, CLI."""
    offenders = [f"{path}: {name}" for path, names in modules("pbem/games").items() if file_game(path) is not None
                 for name in sorted(names) if is_within(name, ("pbem",)) and not is_within(name, GAME_MAY_USE)]
    assert offenders == []


def test_no_game_imports_another() -> None:
    offenders = [f"{path}: {name}" for folder in ("pbem/games", "engine") for path, names in modules(folder).items()
                 if (own := file_game(path)) is not None for name in sorted(names)
                 if (other := game_of(name)) is not None and other != own]
    assert offenders == []


def test_the_core_asks_the_kind_never_its_engine() -> None:
    """Outside a game's own modules and ``BaseKind`` (which passes the ``Rules`` methods on), nothing reads
    ``.rules``: the core calls ``kind.pending(state)``, never ``kind.rules.pending(state)``."""
    offenders = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in sorted((ROOT / "pbem").rglob("*.py"))
                 if file_game(str(path.relative_to(ROOT))) is None and path.name != "basekind.py"
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Attribute) and node.attr == "rules"]
    assert offenders == []


# --- layers, hidden imports, circles ------------------------------------------------------------------------

PROJECT = ("pbem", "engine", "templates", "maps")  # the top-level packages of this project
SCANNED = ("pbem", "engine")  # where the code is
# Top to bottom; a module may import from its own layer and the ones below. An entry names a module and
# everything under it, but the root ``pbem``, which is its own package only (pbem.__version__).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("pbem.cli",),  # the command line
    ("pbem.demo", "pbem.bots"),  # play games by mail as a user does: the demo and its bot players
    ("pbem.daemon",),  # transport only: receive, the inbound queue's workers, the sender, limits, leases
    ("pbem.moderator",),  # the core: games, orders, the mail a move causes, deadlines, the game master
    ("pbem.config", "pbem.initfile"),  # the configuration file, read (into mail and store settings) and written
    ("pbem.games", "pbem.store", "pbem.mail", "pbem.render", "templates"),
    # what every layer shares; pbem.counters: the events a monitor counts, bumped by the core and the daemon
    ("pbem", "pbem.errors", "pbem.holders", "pbem.privatefiles", "pbem.crash", "pbem.languages", "pbem.counters"),
    ("engine", "maps"),  # the rules, pure: no I/O, nothing of the rest
)
# Pillow is loaded only when a picture is drawn (pbem.render.picture's render_png): the one import a function
# may make, so that a command that draws nothing never pays for it.
PILLOW_LOADS_LAZILY = {("pbem.render.picture", "pbem.render.png")}
# The registry of game kinds loads each kind's modules by name (``pbem.games``): the one dynamic import.
DYNAMIC_IMPORTS_IN = {"pbem.games"}


@dataclass(frozen=True)
class Import:
    """One project module imported by another, where and how."""

    importer: str
    target: str  # the module named (``from a import b``: ``a.b`` when that is a module, else ``a``)
    line: int
    in_function: bool
    type_checking: bool  # under ``if TYPE_CHECKING:``: for the types only, never run


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_files() -> dict[str, Path]:
    return {module_name(path): path for folder in SCANNED for path in sorted((ROOT / folder).rglob("*.py"))}


KNOWN_MODULES = set(project_files()) | {"templates", "maps"}


def is_project(name: str) -> bool:
    return name.split(".")[0] in PROJECT


def imports_of(name: str, path: Path) -> Iterator[Import]:
    """Every import of a project module in the file, relative ones resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for part in child.body:
                    yield from visit_one(part, in_function, True)
                for part in child.orelse:
                    yield from visit_one(part, in_function, type_checking)
                continue
            yield from visit_one(child, in_function, type_checking)

    def visit_one(node: ast.AST, in_function: bool, type_checking: bool) -> Iterator[Import]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_project(alias.name):
                    yield Import(name, alias.name, node.lineno, in_function, type_checking)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            if is_project(base):
                for alias in node.names:
                    target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in KNOWN_MODULES else base
                    yield Import(name, target, node.lineno, in_function, type_checking)
        function = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from visit(node, function, type_checking)

    yield from visit(ast.parse(path.read_text(encoding="utf-8")), False, False)


def all_imports() -> list[Import]:
    return [found for name, path in project_files().items() for found in imports_of(name, path)]


def layer_of(name: str) -> int | None:
    """The index of ``name``'s layer in :data:`LAYERS` (its longest entry), None when no layer names it."""
    best: tuple[int, int] | None = None
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            if name == entry or (entry != "pbem" and name.startswith(entry + ".")):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), index)
    return None if best is None else best[1]


def graph() -> dict[str, set[str]]:
    return edges_of(all_imports(), KNOWN_MODULES)


def edges_of(imports: list[Import], known: set[str]) -> dict[str, set[str]]:
    """Module -> the modules that importing it runs: each one named at run time (not for the types only),
    and each package above one that is not a package of the importer's own (``from a.b import c`` runs
    ``a/__init__`` and ``a/b/__init__`` first, unless the importer is inside them, when they run already)."""
    edges: dict[str, set[str]] = {}
    for found in imports:
        edges.setdefault(found.importer, set())
        if found.type_checking or found.target not in known:
            continue
        own = {".".join(found.importer.split(".")[:n]) for n in range(1, found.importer.count(".") + 2)}
        parts = found.target.split(".")
        for n in range(1, len(parts) + 1):
            runs = ".".join(parts[:n])
            if runs != found.importer and (runs == found.target or runs not in own):
                edges[found.importer].add(runs)
    return edges


def circles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, following = work[-1]
            step = next(following, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(edges.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_every_module_has_a_layer() -> None:
    """A new top-level module or package is placed in LAYERS, deliberately."""
    assert sorted(name for name in KNOWN_MODULES if layer_of(name) is None) == []


def test_imports_go_down_the_layers_or_stay_within_one() -> None:
    offenders = [f"{found.importer} (line {found.line}) imports {found.target}, a layer above it"
                 for found in all_imports() if found.target in KNOWN_MODULES
                 and (layer_of(found.target) or 0) < (layer_of(found.importer) or 0)]
    assert offenders == []


def test_the_layers_name_what_the_code_holds() -> None:
    """Each entry of LAYERS is a module or package of this project (a renamed one must not leave a stale name)."""
    assert sorted(entry for entries in LAYERS for entry in entries if entry not in KNOWN_MODULES) == []


def test_no_project_module_is_imported_inside_a_function() -> None:
    """An import in a function hides a dependency: from the layers, from the circles, from the reader."""
    hidden = {(found.importer, found.target): found.line for found in all_imports()
              if found.in_function and not found.type_checking}
    assert sorted(f"{importer} (line {line}) imports {target}" for (importer, target), line in hidden.items()
                  if (importer, target) not in PILLOW_LOADS_LAZILY) == []


def test_modules_are_imported_by_name_only_in_the_registry_of_game_kinds() -> None:
    """``importlib.import_module`` and ``__import__`` are imports no reader sees: only the registry uses one."""
    offenders = []
    for name, path in project_files().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module",
                                                                          "__import__"):
                if name not in DYNAMIC_IMPORTS_IN:
                    offenders.append(f"{name} (line {node.lineno})")
    assert offenders == []


def test_no_module_needs_itself_round_about() -> None:
    """No circle between modules, including the packages an import runs first; hidden imports count too."""
    assert sorted(sorted(circle) for circle in circles(graph())) == []


def test_the_circle_finder_sees_a_circle_through_a_package_and_none_in_a_package_importing_its_modules() -> None:
    """What the test above relies on. ``a.x`` imports ``b.y``, which runs the package ``b`` first, whose face
    imports ``b.z``, which imports ``a.x``: a circle, though no module names ``b``. A package importing its own
    modules (``a``, ``b``), and ``b.y`` importing ``b.w`` (``b`` runs already), make none."""
    imports = [Import("a.x", "b.y", 1, False, False), Import("b", "b.z", 1, False, False),
               Import("b.z", "a.x", 1, True, False), Import("a", "a.x", 1, False, False),
               Import("b.y", "b.w", 1, False, False), Import("b.w", "b.y", 1, False, True)]
    edges = edges_of(imports, {"a", "a.x", "b", "b.y", "b.z", "b.w"})
    assert edges["a.x"] == {"b", "b.y"} and edges["b.y"] == {"b.w"} and edges["b.w"] == set()
    assert circles(edges) == [frozenset({"a", "a.x", "b", "b.z"})]


# --- the tests keep to the same rules -----------------------------------------------------------------------------


def test_tests_import_helpers_from_helper_modules_and_at_the_top() -> None:
    """A test module is not a library: what several tests share lives in a helper module (tests/*kit.py,
    tests/emetable.py, tests/imperialpositions.py ...), and no test hides an import of the project or of a
    helper inside a function."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside = {id(node) for function in ast.walk(tree) if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
                  for node in ast.walk(function) if node is not function}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                where = f"{path.relative_to(ROOT)}:{node.lineno} {name}"
                if name.startswith("tests.") and name.rpartition(".")[2].startswith("test_"):
                    found.append(f"{where} (a test module)")
                elif id(node) in inside and (is_project(name) or name.startswith("tests")):
                    found.append(f"{where} (inside a function)")
    assert found == []
