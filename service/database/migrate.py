"""Run alembic migrations programmatically."""

from __future__ import annotations

import re

from alembic import command
from alembic.config import Config

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
