"""alembic environment: async, on asyncpg; the URL comes from the caller or DATABASE_URL."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import asyncpg
from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

# the migrations' own helpers (migrations/keys.py) are imported as `migrations.…`, from
# whichever folder the command runs in
_HOME = str(Path(__file__).resolve().parent.parent)
if _HOME not in sys.path:
    sys.path.insert(0, _HOME)

from service.database.embedded import asyncpg_dsn, sqlalchemy_url  # noqa: E402
from service.database.tables import metadata  # noqa: E402

config = context.config
target_metadata = metadata


def _url() -> str:
    """The database's URL, as the caller or DATABASE_URL gives it."""
    url = config.attributes.get("database_url") or os.environ.get("DATABASE_URL")
    if not url:
        raise RuntimeError("no database: set DATABASE_URL")
    return str(url)


def run_migrations_offline() -> None:
    context.configure(
        url=sqlalchemy_url(_url()), target_metadata=target_metadata, literal_binds=True
    )
    with context.begin_transaction():
        context.run_migrations()


# the key of the advisory lock that migrations hold, in their one transaction: instances
# started at once on one database migrate one after the other (the later ones find the
# schema at head and do nothing), not side by side (one died on alembic_version's creation)
MIGRATION_LOCK = 0x50_4C_41_59  # "PLAY"


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        context.run_migrations()


async def run_migrations_online() -> None:
    # asyncpg is given the URL itself, which SQLAlchemy's parser cannot always read (several
    # hosts: postgresql://u@h1:p1,h2:p2/db?target_session_attrs=read-write)
    dsn = asyncpg_dsn(_url())
    if config.attributes.get("pooler"):  # DATABASE_POOLER=transaction: service/database/migrate.py
        options: dict[str, int] = {"statement_cache_size": 0}
        engine_url = "postgresql+asyncpg://?prepared_statement_cache_size=0"
    else:
        options, engine_url = {}, "postgresql+asyncpg://"
    engine = create_async_engine(
        engine_url, poolclass=pool.NullPool,
        async_creator=lambda: asyncpg.connect(dsn, **options),
    )
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(run_migrations_online())
