"""The engine is pure: it imports nothing of the service, the web or the database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FORBIDDEN = (
    "aiohttp", "sqlalchemy", "asyncpg", "alembic", "service", "pydantic", "orjson", "uvloop",
    "prometheus_client", "yaml", "tests", "socket", "asyncio", "sqlite3", "psycopg",
)  # fmt: skip


def test_engine_imports_nothing_of_service_web_or_database() -> None:
    code = (
        "import json, sys\n"
        "import engine, engine.cards, engine.moves, engine.errors, engine.position\n"
        "import engine.variants, engine.deals, engine.game, engine.boardtext\n"
        "engine.Game.new('freecell', 1)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    modules = json.loads(out)
    loaded = {name.split(".")[0] for name in modules}
    assert not loaded & set(FORBIDDEN), loaded & set(FORBIDDEN)
    assert "pysol_cards" in loaded


def test_engine_sources_import_only_stdlib_and_pysol_cards() -> None:
    import ast

    allowed_third_party = {"pysol_cards", "engine"}
    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "engine").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top in allowed_third_party, f"{path}: imports {name}"


def _engine_imports() -> dict[str, set[str]]:
    """Each engine module's imports of other engine modules (lazy, TYPE_CHECKING-only and
    ``from engine.x import y`` alike, ``y`` counted as a module when it is one)."""
    import ast

    def name_of(path: Path) -> str:
        parts = path.relative_to(ROOT).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    paths = {name_of(path): path for path in (ROOT / "engine").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets.add(node.module)
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def test_engine_modules_import_one_another_without_a_circle() -> None:
    graph = _engine_imports()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError("import circle: " + " -> ".join([*path[path.index(name) :], name]))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
