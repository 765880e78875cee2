"""The embedded PostgreSQL of local runs: the commands leave it running when they end, and
`python -m service stop-db` (make stop-db) stops it, its data kept."""

from __future__ import annotations

import asyncio
import subprocess

import asyncpg
import psutil

from service.database.embedded import stop_embedded

from ...faults.helpers import postgres_processes, private_postgres


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


async def test_a_lock_file_naming_another_live_process_is_no_server() -> None:
    """A server killed left its postmaster.pid, and its pid went to another process since
    (a reboot): stop-db says none runs, and the server starts again, its data kept."""
    with private_postgres() as pg:
        url = await asyncio.to_thread(pg.start)
        conn = await asyncpg.connect(url)
        await conn.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
        await conn.close()
        lock = pg.data_dir / "postmaster.pid"
        left = lock.read_text()
        pid = int(left.split("\n", 1)[0])
        server = postgres_processes(pg)
        for proc in server:  # (all of it: its backends would hold its shared memory)
            proc.kill()
        psutil.wait_procs(server, timeout=10)
        other = subprocess.Popen(["sleep", "60"])  # (the pid's new owner)
        try:
            lock.write_text(left.replace(str(pid), str(other.pid), 1))
            assert not await asyncio.to_thread(stop_embedded, pg.data_dir)
            assert not lock.exists()
            lock.write_text(left.replace(str(pid), str(other.pid), 1))
            conn = await asyncpg.connect(await asyncio.to_thread(pg.start))
            assert await conn.fetchval("SELECT n FROM kept") == 7
            await conn.close()
        finally:
            other.kill()
            other.wait()
