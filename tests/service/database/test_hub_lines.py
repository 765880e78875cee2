"""The lines instances tell each other through NOTIFY (service/live/hub.py): each payload
begins with its sender, an instance leaves its own unread when they come back through
LISTEN, and acts on every other's."""

from __future__ import annotations

import uuid
from typing import Any

from service.database.statements import payloads
from service.live.hub import CHANNEL, StreamHub


def hub() -> tuple[StreamHub, list[tuple[str, Any]]]:
    told: list[tuple[str, Any]] = []
    h = StreamHub(None, "postgresql://unused")  # type: ignore[arg-type]  # (no store read)
    h.on_game = lambda game, seq: told.append(("game", (game, seq)))
    h.on_race = lambda race: told.append(("race", race))
    h.on_board = lambda variant, deal: told.append(("board", (variant, deal)))
    h.on_signed_out = lambda digest: told.append(("token", digest))
    return h, told


def test_an_instance_leaves_its_own_lines_unread_and_reads_anothers() -> None:
    game, race = uuid.uuid4(), uuid.uuid4()
    lines = [f"{game} 7", f"race {race}", "board freecell 617"]
    here, told_here = hub()
    there, _ = hub()
    assert here.sender != there.sender
    for payload in payloads(here.sender, lines):
        here._notified(None, 0, CHANNEL, payload)
    assert told_here == []
    for payload in payloads(there.sender, lines):
        here._notified(None, 0, CHANNEL, payload)
    assert told_here == [("game", (game, 7)), ("race", race), ("board", ("freecell", 617))]


def test_a_sender_whose_name_begins_like_this_instances_is_not_taken_for_it() -> None:
    here, told = hub()
    game = uuid.uuid4()
    here._notified(None, 0, CHANNEL, f"{here.sender}0\n{game} 3")
    assert told == [("game", (game, 3))]


def test_every_payload_names_its_sender_and_stays_under_the_limit() -> None:
    lines = [f"{uuid.uuid4()} {n}" for n in range(1000)]
    joined = payloads("from 0123456789abcdef", lines, limit=7000)
    assert len(joined) > 1
    assert all(p.startswith("from 0123456789abcdef\n") and len(p) <= 7000 for p in joined)
    assert [line for p in joined for line in p.splitlines()[1:]] == lines
    assert payloads("from x", []) == []


def test_a_sign_out_line_without_a_sender_is_read_by_every_instance() -> None:
    """A sign-out's own statement sends it (players/accounts.py): no sender line."""
    here, told = hub()
    digest = bytes(range(32))
    here._notified(None, 0, CHANNEL, f"token {digest.hex()}\ntoken nothex")
    assert told == [("token", digest)]
