"""The house's rules (issue 32), held by the tests: no folder of code holds more than 15
modules, no module is over 400 lines, and no import of service/ or engine/ goes round in
a circle (the engine's own rules: tests/engine/test_engine_imports.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("engine", "service", "tests", "bench", "tools", "migrations")
MODULES = (".py", ".js", ".css")  # a folder's modules: Python's and the web page's
NOT_MODULES = {"__init__.py", "conftest.py"}
SKIPPED = {"__pycache__", "artifacts", "data"}
MOST_MODULES = 15
MOST_LINES = 400


def folders() -> list[Path]:
    found = []
    for tree in TREES:
        for folder in [ROOT / tree, *(ROOT / tree).rglob("*")]:
            if folder.is_dir() and not SKIPPED & set(folder.relative_to(ROOT).parts):
                found.append(folder)
    return found


def test_no_folder_of_code_holds_more_than_15_modules() -> None:
    crowded = {}
    for folder in folders():
        modules = [p for p in folder.iterdir() if p.suffix in MODULES
                   and p.name not in NOT_MODULES]  # fmt: skip
        if len(modules) > MOST_MODULES:
            crowded[str(folder.relative_to(ROOT))] = len(modules)
    assert crowded == {}


def test_no_module_is_over_400_lines() -> None:
    long = {}
    for folder in folders():
        for path in folder.iterdir():
            if path.suffix in MODULES and path.is_file():
                lines = len(path.read_text(encoding="utf-8").splitlines())
                if lines > MOST_LINES:
                    long[str(path.relative_to(ROOT))] = lines
    assert long == {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of service/ and engine/ that `path` imports, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:  # a name in a module: the module
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                add(f"{base}.{alias.name}")
    return found


def circles_of(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of imports a walk of `graph` meets (each as the names round it)."""
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                circles.append([*path[path.index(target):], target])
            elif target not in state:
                walk(target)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name)
    return circles


def test_no_import_of_service_or_engine_goes_round_in_a_circle() -> None:
    paths = {module_name(p): p for tree in ("service", "engine")
             for p in (ROOT / tree).rglob("*.py")}  # fmt: skip
    known = set(paths)
    assert circles_of({name: imports_of(path, known) for name, path in paths.items()}) == []


def test_the_rules_checks_see_what_they_look_for() -> None:
    """The imports read, absolute and relative, and a circle found where there is one."""
    known = {module_name(p) for p in (ROOT / "service").rglob("*.py")}
    found = imports_of(ROOT / "service" / "games" / "routes.py", known)
    assert {"service.games.commands", "service.players.auth"} <= found
    assert circles_of({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles_of({"a": {"b"}, "b": set()}) == []
