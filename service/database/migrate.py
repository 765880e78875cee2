"""Run alembic migrations programmatically."""

from __future__ import annotations

import asyncio
import re

import asyncpg
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from service.base.settings import ROOT


def alembic_config(database_url: str, pooler: bool = False) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.attributes["database_url"] = database_url
    # through a pooler in transaction mode (DATABASE_POOLER=transaction): no prepared
    # statements kept, neither SQLAlchemy's nor asyncpg's (the migrations run in one
    # transaction, so on one server connection, and take no session-level lock)
    cfg.attributes["pooler"] = pooler
    return cfg


def upgrade(database_url: str, pooler: bool = False) -> None:
    command.upgrade(alembic_config(database_url, pooler), "head")


def schema_ahead(database_url: str) -> str | None:
    """Why this code must not serve the database, whose schema is at a revision it does
    not know (a newer version of the service migrated it), or None. Alembic would fail on
    it; this says what to do instead (docs/operations.md, "Upgrades")."""
    script = ScriptDirectory.from_config(alembic_config(database_url))
    current = asyncio.run(_revision(database_url))
    if current is None or current in {rev.revision for rev in script.walk_revisions()}:
        return None
    return (f"the database's schema is at revision {current}, which this version of the"
            f" service does not know (its newest is {script.get_current_head()}): a newer"
            " version has migrated it. Run that version; this one serves the database only"
            " as it was before the upgrade (a backup)")


def schema_behind(database_url: str) -> str | None:
    """Why the database's schema is not this code's (not migrated, or at another revision),
    or None when it is: a check of the data (`python -m service verify`) changes nothing,
    the schema included."""
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    current = asyncio.run(_revision(database_url))
    if current == head:
        return None
    return (f"the database's schema is at revision {current or 'none'}, this code's at {head}:"
            " run `python -m service migrate` first")


async def _revision(database_url: str) -> str | None:
    conn = await asyncpg.connect(database_url, statement_cache_size=0)
    try:
        return await conn.fetchval("SELECT version_num FROM alembic_version")  # type: ignore[no-any-return]
    except asyncpg.UndefinedTableError:
        return None
    finally:
        await conn.close()


SQL = ROOT / "migrations" / "sql"


def sql_statements(name: str) -> list[str]:
    """The statements of migrations/sql/{name}: the write path's functions, one file per
    version, so that a change to one is a diff a reviewer reads. Each statement of such a
    file ends with `$$;` (a function body)."""
    text = (SQL / name).read_text()
    return [s for s in re.split(r"(?<=\$\$;)\n", text) if s.strip()]


def run_sql(name: str) -> None:
    """Inside a migration: run migrations/sql/{name}."""
    from alembic import op

    for statement in sql_statements(name):
        op.execute(statement)
