"""Live events with EVENTS_BROKER=nats://…: the wake-ups go through NATS instead of
LISTEN/NOTIFY, the events still come from the log; a broker outage delays events by at
most the sweep and loses none. Each test runs its own nats-server (Debian's package)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator

import pytest

from service.base.keys import BACKEND_KEY
from service.live.hub import HUB_KEY
from service.players.tokens import hash_token

from ...conftest import NATS_SERVER, NatsServer
from ..helpers import auth, new_game, new_player
from .helpers import as_json, events_of, instances, receive, wait_for, write

pytestmark = pytest.mark.skipif(
    NATS_SERVER is None, reason="nats-server (Debian: nats-server) is needed"
)

# Delivery through the broker, with the sweep out of the way, is tested with the other
# delivery tests (test_stream.py and test_race_instances.py, once for each transport).


@pytest.fixture
def broker() -> Iterator[NatsServer]:
    b = NatsServer()
    b.start()
    yield b
    b.stop()


async def test_a_broker_outage_delays_events_and_loses_none(
    db_url: str, broker: NatsServer
) -> None:
    settings = {"ws_sweep": 0.5, "events_broker": broker.url}
    async with instances(db_url, settings, settings) as (a, b):
        hubs = [c.app[HUB_KEY] for c in (a, b)]
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        wb = await b.ws_connect(f"/v1/games/{gid}/stream")
        rng = random.Random(5)
        await write(a, ada, gid, rng)
        first = await events_of(a, gid)
        assert await receive(wb, len(first)) == as_json(first)

        broker.stop()
        await wait_for(lambda: not any(h.listening.is_set() for h in hubs), "the broker gone")
        for _ in range(4):  # moves while the broker is away: the sweep delivers them
            await write(a, ada, gid, rng)
        stored = await events_of(a, gid)
        started = time.monotonic()
        assert await receive(wb, len(stored) - len(first)) == as_json(stored[len(first):])
        assert time.monotonic() - started < 3.0  # the sweep's period, and a little

        broker.start()  # the clients reconnect by themselves
        await wait_for(lambda: all(h.listening.is_set() for h in hubs), "the broker back")
        for h in hubs:
            h.sweep_every = 3600  # from now on only the broker can wake B
        await asyncio.sleep(0.6)  # (a sweep already waiting ends first)
        answer = await write(a, ada, gid, rng)
        got = await receive(wb, len(answer["events"]))
        assert [m["seq"] for m in got] == [e["seq"] for e in answer["events"]]
        await wb.close()


async def test_a_token_signed_out_through_the_broker_is_refused_by_the_other_instance_at_once(
    db_url: str, broker: NatsServer
) -> None:
    settings = {"events_broker": broker.url}
    async with instances(db_url, settings, settings) as (a, b):
        ada = await new_player(a)
        r = await a.post("/v1/players/me/tokens", json={"device": "iPad"}, headers=auth(ada))
        ipad = await r.json()
        ipad_auth = {"Authorization": f"Bearer {ipad['token']}"}
        assert (await b.get("/v1/players/me", headers=ipad_auth)).status == 200  # in b's memory
        r = await a.delete(f"/v1/players/me/tokens/{ipad['id']}", headers=auth(ada))
        assert r.status == 204
        # b refuses it at once, by the database's word, and forgets it when the broker's
        # line comes
        assert (await b.get("/v1/players/me", headers=ipad_auth)).status == 401
        digest = hash_token(ipad["token"])
        await wait_for(lambda: b.app[BACKEND_KEY].players.get(digest) is None,
                       "b to hear of the sign-out")


async def test_through_the_broker_a_conditional_get_is_the_logs_to_answer(
    db_url: str, broker: NatsServer
) -> None:
    """Through the broker a commit's news leaves after it, from a task of the writer (lost
    when the writer dies first, late while the broker is away): memory cannot tell that
    another instance moved a game, so a conditional GET is answered by the log. B moves the
    game and its news never leaves; A, whose copy is behind, answers 200 with the new tag,
    then 304 for it."""
    settings = {"events_broker": broker.url}
    async with instances(db_url, settings, settings) as (a, b):
        ada = await new_player(a)
        gid = (await new_game(a, ada, deal=617))["id"]
        paths = [f"/v1/games/{gid}", f"/v1/games/{gid}/legal-moves",
                 f"/v1/games/{gid}/events?after=0&limit=1000"]  # fmt: skip
        tags = []
        for path in paths:
            r = await a.get(path)
            tags.append(r.headers["ETag"])
            r = await a.get(path, headers={"If-None-Match": tags[-1]})
            assert r.status == 304, path
        b.app[BACKEND_KEY].committed = lambda _game, _seq: None  # (as if B died at once)
        await write(b, ada, gid, random.Random(3))
        for path, tag in zip(paths, tags, strict=True):
            r = await a.get(path, headers={"If-None-Match": tag})
            assert r.status == 200 and r.headers["ETag"] != tag, path
            r = await a.get(path, headers={"If-None-Match": r.headers["ETag"]})
            assert r.status == 304, path
