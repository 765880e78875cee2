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
