"""The embedded PostgreSQL of local runs: the commands leave it running when they end, and
`python -m service stop-db` (make stop-db) stops it, its data kept."""

from __future__ import annotations

import asyncio

import asyncpg

from service.database.embedded import stop_embedded

from ...faults.helpers import private_postgres


async def test_stop_db_stops_the_embedded_server_and_keeps_its_data() -> None:
    with private_postgres() as pg:
        url = await asyncio.to_thread(pg.start)
        conn = await asyncpg.connect(url)
        await conn.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
        await conn.close()
        assert await asyncio.to_thread(stop_embedded, pg.data_dir)
        assert not (pg.data_dir / "postmaster.pid").exists()
        assert not await asyncio.to_thread(stop_embedded, pg.data_dir)  # (none running)
        conn = await asyncpg.connect(await asyncio.to_thread(pg.start))
        assert await conn.fetchval("SELECT n FROM kept") == 7
        await conn.close()
