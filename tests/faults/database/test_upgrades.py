"""Upgrades (docs/operations.md, "Upgrades"): a version of the service started on a database
that a newer version has migrated stops at once and says what to do, leaving the database
as it is, instead of failing in alembic with a traceback; and an older version still
serving beside a newer one cannot write what the newer one relies on without."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid

import asyncpg
import pytest

from ..helpers import ROOT


async def test_a_schema_newer_than_the_code_stops_each_command_with_what_to_do(
    db_url: str,
) -> None:
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute("UPDATE alembic_version SET version_num = '9999'")
        for command in ("run", "migrate", "verify"):
            run = await asyncio.to_thread(
                subprocess.run, [sys.executable, "-m", "service", command], cwd=ROOT,
                capture_output=True, text=True, timeout=60,
                env={**os.environ, "DATABASE_URL": db_url},
            )
            assert run.returncode == 2, run.stdout + run.stderr
            assert "at revision 9999, which this version of the service does not know" in (
                run.stderr)
            assert "Traceback" not in run.stderr
        assert await conn.fetchval("SELECT version_num FROM alembic_version") == "9999"
    finally:
        await conn.close()


async def test_a_player_written_without_its_names_keys_is_refused(db_url: str) -> None:
    """During a deploy, an older version beside a newer one writes players as it knew them:
    without the keys that keep lookalikes of a taken name out (or some of them). The
    database refuses such a row (migration 0026), so no lookalike gets in that way."""
    conn = await asyncpg.connect(db_url)
    try:
        for columns, values in (("", ""), (", name_key", ", 'roller'"),
                                (", name_key, shape_key", ", 'roller', 'roller'")):  # fmt: skip
            with pytest.raises(asyncpg.NotNullViolationError, match="name's keys"):
                await conn.execute(
                    f"INSERT INTO players (id, name, token_hash{columns})"
                    f" VALUES ($1, 'rolIer', $2{values})", uuid.uuid4(), uuid.uuid4().bytes,
                )  # fmt: skip
        assert await conn.fetchval("SELECT count(*) FROM players") == 0
    finally:
        await conn.close()
