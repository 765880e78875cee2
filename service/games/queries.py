"""Reading games: the game, its legal moves, a card's destinations and a page of its log,
as the log has them now (service/games/positions.py), in plain values
(service/games/views.py). A won game's view also says where it stands on its deal's
board (service/boards/times.py), which changes as others win."""

from __future__ import annotations

import uuid
from typing import Any

from engine.status import WON
from service.base.backend import Backend
from service.base.errors import NotFound
from service.base.requests import EVENTS_PAGE
from service.base.responses import Known
from service.boards.times import standing
from service.games import positions
from service.games.views import event_view, game_view, move_view


def known(backend: Backend, game_id: uuid.UUID, suffix: str = "") -> Known | None:
    """The game's tag (its id and version, and `suffix`: what of it is read), when memory
    knows the version is the log's (positions.known_version). (A won game's view is
    tagged with its standing too, which memory does not know: its tag never matches.)"""

    def now() -> str | None:
        version = positions.known_version(backend, game_id)
        return None if version is None else f"{game_id}.{version}{suffix}"

    tag = now()
    return None if tag is None else Known(tag, now)


def view_tag(view: dict[str, Any]) -> str:
    """The view's ETag: its version, and a won game's standing."""
    tag = f"{view['id']}.{view['version']}"
    place = view.get("standing")
    return tag if place is None else f"{tag}.{place['rank']}.{place['of']}"


async def get_game(backend: Backend, game_id: uuid.UUID) -> dict[str, Any]:
    live = await positions.current(backend, game_id)
    view = game_view(game_id, live, backend.max_game_events)
    if live.game.status == WON:
        view["standing"] = await standing(
            backend, live.game.variant, live.game.deal, live.player_id, game_id
        )
    return view


async def legal_moves(backend: Backend, game_id: uuid.UUID) -> dict[str, Any]:
    live = await positions.current(backend, game_id)
    g = live.game
    moves = []
    if live.takes_moves(backend.max_game_events):
        moves = [move_view(m) for m in g.position.listed_moves()]
    return {"version": g.version, "status": g.status, "moves": moves}


async def destinations(backend: Backend, game_id: uuid.UUID, card: str) -> dict[str, Any]:
    live = await positions.current(backend, game_id)
    g = live.game
    targets = list(g.position.destinations(card))  # not a card or pile of this game: 400
    if not live.takes_moves(backend.max_game_events):
        targets = []
    return {"version": g.version, "card": card, "destinations": targets}


def page_size(limit: int | None) -> int:
    """The events one page of the log carries for a `limit` asked (none: a whole page)."""
    return min(limit or EVENTS_PAGE, EVENTS_PAGE)


def events_tag(game_id: uuid.UUID, after: int, size: int, end: int | None) -> str:
    """The ETag of a page of the log: the events after `after`, `size` at most. A full
    page (`end` None: more events follow) never changes, the log being append-only; a
    page that reaches the log's end changes with the game, whose version its tag holds
    (`end`: the page's last seq, or `after` for an empty page), as the game's own tag
    does: memory's known version answers its 304 (known_page)."""
    if end is None:
        return f"{game_id}.events.{after}.{size}.full"
    return f"{game_id}.{end}{events_suffix(after, size)}"


def known_page(backend: Backend, game_id: uuid.UUID, after: int, size: int) -> Known | None:
    """The tag of the page of `size` events after `after` that memory knows current. A
    page that memory's copy of the game goes past, current or not, is full for good (the
    log only grows); a page that ends at the game's version is known as the game is. (A
    tag the service never gave, or a game memory does not hold, is the log's to judge:
    404, or the page as it is.)"""
    held = backend.games.get(game_id)
    if held is not None and held.version > after + size:
        return Known(events_tag(game_id, after, size, None), None)
    return known(backend, game_id, events_suffix(after, size))


def events_suffix(after: int, size: int) -> str:
    return f".events.{after}.{size}"


def page_tag(game_id: uuid.UUID, after: int, size: int, page: dict[str, Any]) -> str:
    """events_tag of a page read_events gave."""
    if page["next"] is not None:
        return events_tag(game_id, after, size, None)
    return events_tag(game_id, after, size, page["events"][-1]["seq"] if page["events"] else after)


async def read_events(
    backend: Backend, game_id: uuid.UUID, after: int, limit: int | None
) -> dict[str, Any]:
    """One page of the log after `after`, oldest first; `next` is the `after` of the next
    page, null when this one reaches the end."""
    limit = page_size(limit)
    events = await backend.store.read_events(game_id, after, limit + 1)
    if not events and after == 0:
        raise NotFound(f"there is no game with id {game_id}")
    if not events:
        await positions.load(backend, game_id)  # 404 for an unknown game, even with after > 0
    page = events[:limit]
    more = len(events) > limit
    return {"events": [event_view(e) for e in page], "next": page[-1].seq if more else None}
