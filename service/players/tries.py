"""Link-code tries per client address in any minute, counted by the database, so that
every instance of the service counts them together (API.md: more than 10 tries a minute
from one address is 429). Each instance's workers count them in memory first
(RATE_LINK_TRIES_PER_MINUTE, base/ratelimit.py's MinuteWindows), before the body is read,
so a flood of tries costs the database nothing; a try that passes is counted here too.

`link_tries` holds an address's tries of the last minute, oldest first (migration 0021).
A try is one statement that locks the address's row: concurrent tries from one address,
on any instance, count one after another.
"""

from __future__ import annotations

from typing import Final

from service.base.backend import Backend
from service.base.ratelimit import refusal

# the address's tries of the last minute, and this one unless there are `$2` already:
# whether it was taken, and the seconds until the oldest is a minute old
TRY: Final = """
INSERT INTO link_tries AS l (address, tries) VALUES ($1, ARRAY[now()])
ON CONFLICT (address) DO UPDATE SET tries = (
    SELECT array_agg(t ORDER BY t) FROM (
        SELECT t FROM unnest(l.tries) AS t WHERE t > now() - interval '1 minute'
        UNION ALL
        SELECT now() WHERE (SELECT count(*) FROM unnest(l.tries) AS u
                            WHERE u > now() - interval '1 minute') < $2
    ) AS kept(t))
RETURNING now() = ANY(tries) AS taken,
          extract(epoch FROM tries[1] + interval '1 minute' - now())::float8 AS wait"""

PURGE: Final = (
    "DELETE FROM link_tries WHERE tries[cardinality(tries)] < now() - interval '1 minute'"
)


async def take(backend: Backend, address: str, per_minute: int) -> None:
    """Count a link-code try from `address`: 429 when it made `per_minute` in the last
    minute already (the refused try is not counted)."""
    async with backend.store.connection() as conn:
        row = await conn.fetchrow(TRY, address, per_minute, timeout=backend.store.timeout)
    if not row["taken"]:
        raise refusal("link-code tries from your address", per_minute, row["wait"])


async def purge(backend: Backend) -> None:
    """Forget the addresses whose last try is over a minute old."""
    async with backend.store.connection() as conn:
        await conn.execute(PURGE, timeout=backend.store.timeout)
