"""PostgreSQL gone or hung under load: quick 503s, then recovery by itself, nothing lost or
doubled.

The test has a PostgreSQL of its own (embedded, in a folder under the checkout: as root
the server runs as another user, which cannot enter pytest's private temporary folders).
Six players keep making moves at the service (in this process, not restarted) while the
database

1. is stopped with `pg_ctl -m immediate` (its backends die at once, as in a crash; commits
   under way may or may not have been flushed), then started again,
2. loses its postmaster to SIGKILL (its backends notice and exit; the server restarts with
   crash recovery), then is started again, and
3. hangs: every one of its processes is stopped with SIGSTOP (a frozen host, a network
   that drops packets), then continued; statements under way then finish late, after
   the service gave up on them, so those requests' outcome is unknown to the service.

`DB_TIMEOUT` is 1 s here (5 s by default): what a request waits for the database at
most, all its steps together (getting a connection, its statements, a write lane).
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import asyncpg
import psutil
import pytest

from service.app import create_app
from service.base.keys import BACKEND_KEY
from service.database.embedded import EmbeddedPostgres
from service.verify.run import verify

from ...api.helpers import auth, instance, new_game, new_player
from ...conftest import Served, make_settings
from ..driver import Driver, Request, at, check_log, player_moves
from ..helpers import migrated_database, postgres_processes, signal_all, until

PLAYERS = 6
BEFORE = 60  # acknowledged requests before the database goes away (all players)
AFTER = 5  # acknowledged requests per player once it is back
OUTAGE_SECONDS = 2.5
DB_TIMEOUT = 1.0
# the longest a request may take while the database is away: DB_TIMEOUT for all its waits
# together (a token's check, a turn behind a write lane's hung batch, a connection, the
# statement), and a little for the rest (a timed-out statement's connection goes back to
# the pool in the background: the refusal does not wait for the server's cancel)
FEW_SECONDS = DB_TIMEOUT + 1.0



@dataclass
class Outage:
    name: str
    answers: Counter[str]  # what the requests sent during the outage got
    slowest: float  # seconds, the slowest of those answers
    health: list[tuple[int, str | None, float]]  # /healthz: status, Retry-After, seconds
    cut_off: list[Request]  # requests under way when it began (answered in the end)
    committed_before: int  # of those: committed before it began (answered from the key)
    recovered_in: float  # seconds from the database's return to the next 201

    def __str__(self) -> str:
        return (
            f"{self.name}: {self.answers.total()} requests during the outage got"
            f" {dict(self.answers)}, the slowest in {self.slowest * 1000:.0f} ms; /healthz"
            f" {len(self.health)}x 503 with Retry-After (slowest"
            f" {max(t for *_, t in self.health) * 1000:.0f} ms); {len(self.cut_off)} requests"
            f" under way when it began, all answered in the end ({self.committed_before}"
            f" from their first commit); first 201 {self.recovered_in:.2f} s after the"
            f" database was back"
        )


async def health(session: aiohttp.ClientSession, base: str) -> tuple[int, str | None, float]:
    started = time.monotonic()
    async with session.get(f"{base}/healthz") as r:
        await r.read()
        return r.status, r.headers.get("Retry-After"), time.monotonic() - started


async def outage(
    name: str,
    drivers: list[Driver],
    session: aiohttp.ClientSession,
    base: str,
    go_away: Callable[[], Awaitable[None]],
    come_back: Callable[[], Awaitable[None]],
) -> Outage:
    began_at, began = time.time(), time.monotonic()
    await go_away()
    # counted once it is away: a driver's next acknowledgment is then of its request in
    # flight (its requests go one at a time), so AFTER more mean that one was answered
    acked = {d.game_id: d.acknowledged for d in drivers}
    in_flight = [d.pending for d in drivers if d.pending is not None]
    checks = []
    try:
        while time.monotonic() - began < OUTAGE_SECONDS:
            checks.append(await health(session, base))
            await asyncio.sleep(0.2)
    finally:
        ended = time.monotonic()
        await come_back()
    back = time.monotonic()
    await until(lambda: all(d.acknowledged >= acked[d.game_id] + AFTER for d in drivers),
                30, f"{AFTER} more acknowledged requests per player after: {name}")

    # /healthz said 503 with Retry-After all through, within a few seconds
    assert checks and all(s == 503 and ra and ra.isdigit() for s, ra, _ in checks), checks
    assert max(took for *_, took in checks) < FEW_SECONDS, checks
    # requests sent meanwhile: 503 problems with Retry-After (the Driver checks each) or
    # cut off mid-flight, within a few seconds; none hung
    during = [(outcome, took) for d in drivers for sent, outcome, took in d.history
              if began <= sent < ended]
    answers = Counter(outcome for outcome, _ in during)
    assert answers["503"] > 0, answers
    assert set(answers) <= {"503", "201", "ServerDisconnectedError"}, answers
    slowest = max(took for _, took in during)
    assert slowest < FEW_SECONDS, during
    # the requests under way when it began were answered in the end: with their first
    # answer (committed before) or appended by a retry
    cut_off = [r for r in in_flight if r.retried]
    assert all(r.answer is not None for r in cut_off)
    committed_before = sum(
        1 for r in cut_off if at(r.answer["events"][0]["at"]).timestamp() < began_at  # type: ignore[index]
    )
    recovered = min((sent + took for d in drivers for sent, outcome, took in d.history
                     if outcome == "201" and sent >= back), default=float("inf"))
    return Outage(name, answers, slowest, checks, cut_off, committed_before, recovered - back)


@pytest.mark.slow
async def test_database_gone_or_hung_answers_503_then_recovers_without_a_restart(
    own_postgres: EmbeddedPostgres,
) -> None:
    url = await migrated_database(own_postgres, "outage")

    async def stop() -> None:
        await asyncio.to_thread(own_postgres.stop, "immediate")

    async def start() -> None:
        await asyncio.to_thread(own_postgres.restart)

    async def kill() -> None:
        """The postmaster alone: its backends notice and exit (the outage begins once
        they have: until then, a pooled connection's backend may still answer)."""
        postmaster, *children = postgres_processes(own_postgres)
        postmaster.send_signal(signal.SIGKILL)
        await asyncio.to_thread(psutil.wait_procs, [postmaster, *children], 10)

    async def freeze() -> None:
        signal_all(own_postgres, signal.SIGSTOP)

    async def thaw() -> None:
        signal_all(own_postgres, signal.SIGCONT)

    # one write lane: writes that meet go in one statement (group commit), so the outages
    # cut batches as well as lone writes
    server = Served(create_app(make_settings(url, db_timeout=DB_TIMEOUT, write_lanes=1)))
    await server.start_server()
    base = str(server.make_url("")).rstrip("/")
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as session:
            drivers = [Driver(session, base, seed, retry_pause=0.1) for seed in range(PLAYERS)]
            for d in drivers:
                await d.create()
            halt = asyncio.Event()
            tasks = [asyncio.create_task(d.run(halt)) for d in drivers]
            try:
                await until(lambda: sum(d.acknowledged for d in drivers) >= BEFORE, 30,
                            f"{BEFORE} acknowledged requests")
                stopped = await outage("stopped", drivers, session, base, stop, start)
                killed = await outage("killed", drivers, session, base, kill, start)
                # nothing waits on a server that is gone: each answer within a second
                assert killed.slowest < 1.0 and max(t for *_, t in killed.health) < 1.0, killed
                hung = await outage("hung", drivers, session, base, freeze, thaw)
            finally:
                halt.set()
                await asyncio.gather(*tasks)
            assert (await health(session, base))[0] == 200
            batched = server.app[BACKEND_KEY].store.batched_writes
            assert batched > 0  # group commit was part of it

            # every acknowledged request is in its game's log once, in order; nothing else
            logs = {d.game_id: await d.log() for d in drivers}
            for d in drivers:
                check_log(d, logs[d.game_id])
    finally:
        await server.close()

    report = await verify(url)
    assert report.ok, [str(x) for x in report.differences]
    acknowledged = sum(d.acknowledged for d in drivers)
    assert sum(player_moves(log) for log in logs.values()) == acknowledged
    print(f"\noutage: {PLAYERS} players, {acknowledged} requests acknowledged, each in the"
          f" logs once ({batched} of them written in batches), nothing else there; {stopped};"
          f" {killed}; {hung}; verify:"
          f" {report.summary()}")


# ---------------------------------------------------------------- a slow database's writes
# (row locks of the tests' own stand for a database that is slow for one game)


async def held(db_url: str, *game_ids: str) -> tuple[asyncpg.Connection, Any]:
    """A connection holding the games' rows locked in an open transaction."""
    conn = await asyncpg.connect(db_url)
    tx = conn.transaction()
    await tx.start()
    await conn.execute("SELECT 1 FROM games WHERE id = ANY($1::uuid[]) FOR UPDATE",
                       [uuid.UUID(g) for g in game_ids])
    return conn, tx


async def let_go(conn: asyncpg.Connection, tx: Any) -> None:
    await tx.rollback()
    await conn.close()


async def test_writes_queued_behind_a_hung_one_each_answer_within_db_timeout(
    db_url: str,
) -> None:
    async with instance(db_url, db_timeout=DB_TIMEOUT) as client:
        ada = await new_player(client)
        gid = (await new_game(client, ada, deal=617))["id"]
        conn, tx = await held(db_url, gid)

        async def move(n: int) -> tuple[int, float]:
            start = time.monotonic()
            r = await client.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                                  headers={**auth(ada), "Idempotency-Key": f"queued-{n}"})
            return r.status, time.monotonic() - start

        try:
            answers = await asyncio.gather(*(move(n) for n in range(4)))
        finally:
            await let_go(conn, tx)
        # the first waits on the row, the others for this instance's lock of the game:
        # each its DB_TIMEOUT, all of them at once (not one DB_TIMEOUT after another)
        assert [status for status, _ in answers] == [503] * 4, answers
        assert max(took for _, took in answers) < FEW_SECONDS, answers


async def test_a_write_answered_503_that_commits_later_leaves_no_stale_304(db_url: str) -> None:
    async with instance(db_url, db_timeout=DB_TIMEOUT, write_lanes=1) as client:
        ada = await new_player(client)
        gid = (await new_game(client, ada, deal=617))["id"]
        other = (await new_game(client, ada, deal=618))["id"]
        tag = (await client.get(f"/v1/games/{gid}")).headers["ETag"]
        conn_g, tx_g = await held(db_url, gid)
        conn_o, tx_o = await held(db_url, other)
        try:
            # the other game's write takes the one lane and waits on its row; this game's
            # waits for the lane, then (sent when the other's row is let go) on its own
            first = asyncio.create_task(client.post(
                f"/v1/games/{other}/moves", json={"from": "t1", "to": "c"}, headers=auth(ada)))
            await asyncio.sleep(0.2)
            late = asyncio.create_task(client.post(
                f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                headers={**auth(ada), "Idempotency-Key": "late"}))
            await asyncio.sleep(DB_TIMEOUT * 0.6)
            await let_go(conn_o, tx_o)
            assert (await first).status == 201
            refused = await late  # its budget spent: 503, its statement still under way
            assert refused.status == 503, await refused.text()
            # read now, the log is where it was: the write has not committed
            assert (await (await client.get(f"/v1/games/{gid}")).json())["version"] == 1
        finally:
            await let_go(conn_g, tx_g)
        await asyncio.sleep(0.2)  # the write commits now, after its 503
        assert await fetch_version(db_url, gid) == 2
        r = await client.get(f"/v1/games/{gid}", headers={"If-None-Match": tag})
        assert r.status == 200 and (await r.json())["version"] == 2
        # and the retry by its key gives the write's answer
        again = await client.post(f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"},
                                  headers={**auth(ada), "Idempotency-Key": "late"})
        assert again.status == 201 and (await again.json())["game"]["version"] == 2


async def test_a_statement_the_database_cancels_is_a_503(db_url: str) -> None:
    # (the move may take seconds to reach the lock on a loaded machine: it waits up to
    # DB_TIMEOUT there, and the test up to 8 s for it)
    async with instance(db_url, db_timeout=10.0) as client:
        ada = await new_player(client)
        gid = (await new_game(client, ada, deal=617))["id"]
        conn, tx = await held(db_url, gid)
        try:
            move = asyncio.create_task(client.post(
                f"/v1/games/{gid}/moves", json={"from": "t1", "to": "c"}, headers=auth(ada)))
            blocked = None
            for _ in range(400):
                blocked = await conn.fetchval(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock'")
                if blocked is not None:
                    break
                await asyncio.sleep(0.02)
            assert blocked is not None
            await conn.execute("SELECT pg_cancel_backend($1)", blocked)  # as an operator would
            r = await move
        finally:
            await let_go(conn, tx)
        assert r.status == 503 and r.headers["Retry-After"], await r.text()
        assert (await r.json())["type"].endswith("/database-unavailable")


async def fetch_version(db_url: str, gid: str) -> int:
    conn = await asyncpg.connect(db_url)
    try:
        version: int = await conn.fetchval("SELECT version FROM games WHERE id = $1",
                                           uuid.UUID(gid))
        return version
    finally:
        await conn.close()


async def test_a_hung_database_answers_transactions_within_db_timeout(
    own_postgres: EmbeddedPostgres,
) -> None:
    """Requests that run a transaction (following a player, a player's record) answer 503
    within DB_TIMEOUT when the database hangs: their BEGIN waits no longer than their
    statements (asyncpg's own BEGIN waited the pool's 30 s), then work once it is back."""
    url = await migrated_database(own_postgres, "hung_transactions")
    server = Served(create_app(make_settings(url, db_timeout=1.0)))
    await server.start_server()
    base = str(server.make_url("")).rstrip("/")
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=40)) as session:
            players = []
            for name in ("ada", "bob"):
                async with session.post(f"{base}/v1/players", json={"name": name}) as r:
                    players.append(await r.json())
            ada, bob = players
            follow = f"{base}/v1/players/me/friends/{bob['id']}"
            async with session.get(f"{base}/v1/players/me", headers=auth(ada)) as r:
                assert r.status == 200  # (the token known to memory from here on)
            signal_all(own_postgres, signal.SIGSTOP)
            try:
                for method, address in (("PUT", follow), ("GET", f"{base}/v1/players/me")):
                    started = time.monotonic()
                    async with session.request(method, address, headers=auth(ada)) as r:
                        assert r.status == 503, (method, await r.text())
                    assert time.monotonic() - started < 3.0, method
            finally:
                signal_all(own_postgres, signal.SIGCONT)
            for _ in range(50):
                async with session.put(follow, headers=auth(ada)) as r:
                    if r.status == 204:
                        break
                await asyncio.sleep(0.2)
            assert r.status == 204
    finally:
        await server.close()


async def test_link_code_tries_the_database_never_judged_do_not_count(
    own_postgres: EmbeddedPostgres,
) -> None:
    """Tries answered 503 while the database is gone are not counted: back, the address
    has its ten tries of the minute (a phone retrying through an outage is not locked out)."""
    url = await migrated_database(own_postgres, "link_tries")
    server = Served(create_app(make_settings(url, rate_limits="on", db_timeout=1.0)))
    await server.start_server()
    base, body = str(server.make_url("/v1/tokens")), {"code": "AAAA-BBBB", "device": "x"}
    try:
        async with aiohttp.ClientSession() as session:
            await asyncio.to_thread(own_postgres.stop, "immediate")
            for _ in range(10):
                async with session.post(base, json=body) as r:
                    assert r.status == 503
            await asyncio.to_thread(own_postgres.restart)
            statuses = []
            for _ in range(11):
                async with session.post(base, json=body) as r:
                    statuses.append(r.status)
            assert statuses == [422] * 10 + [429], statuses
    finally:
        await server.close()
