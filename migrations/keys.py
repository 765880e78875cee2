"""What the migrations that give existing players their name keys share (0008, 0017 and
0022): each key computed in Python with the service's own function
(service/players/names.py), the oldest player of lookalikes (by created_at, then id)
keeping the key and the others' left NULL (they keep their names), written BATCH players a
statement."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa

BATCH = 5000


def held_keys(names: Iterable[str], key: Callable[[str], str]) -> list[str | None]:
    """Each name's key, for names oldest first: None where an older name holds it."""
    seen: set[str] = set()
    keys: list[str | None] = []
    for name in names:
        k = key(name)
        keys.append(None if k in seen else k)
        seen.add(k)
    return keys


def give_keys(bind: Any, keys: dict[str, Callable[[str], str]]) -> None:
    """Every player's keys in the columns `keys` names, made anew (cleared first: a key made
    anew may be another player's old one until both are set)."""
    rows = bind.execute(sa.text("SELECT id, name FROM players ORDER BY created_at, id")).all()
    names = [name for _, name in rows]
    columns = list(keys)
    held = {column: held_keys(names, keys[column]) for column in columns}
    bind.execute(sa.text("UPDATE players SET " + ", ".join(f"{c} = NULL" for c in columns)))
    update = sa.text(
        "UPDATE players p SET " + ", ".join(f"{c} = k.{c}" for c in columns)
        + " FROM unnest(CAST(:ids AS uuid[]), "
        + ", ".join(f"CAST(:{c} AS text[])" for c in columns)
        + f") AS k(id, {', '.join(columns)}) WHERE p.id = k.id"
    )
    ids = [player_id for player_id, _ in rows]
    for start in range(0, len(ids), BATCH):
        part = slice(start, start + BATCH)
        bind.execute(update, {"ids": ids[part], **{c: held[c][part] for c in columns}})


def give_every_key(bind: Any) -> None:
    """Every player's three keys made anew with the service's functions of today (the
    migrations that change how a key reads a name: 0025, 0027, 0028, 0030)."""
    from service.players.names import glyph_key, name_key, shape_key

    give_keys(bind, {"name_key": name_key, "shape_key": shape_key, "glyph_key": glyph_key})
