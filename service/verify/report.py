"""What `python -m service verify` found: each difference, and the counts of its summary."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

# how a check reports a difference: the game it concerns (None: no one game), and what
Differ = Callable[[uuid.UUID | None, str], None]


@dataclass(frozen=True, slots=True)
class Difference:
    game_id: uuid.UUID | None
    what: str

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.what}" if self.game_id else self.what


@dataclass
class Report:
    # the pace rule's threshold the wins were judged by (the services' must be the same)
    min_median_move_ms: int = 200
    games: int = 0
    events: int = 0
    entries: int = 0
    differences: list[Difference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences

    def differ(self, game_id: uuid.UUID | None, what: str) -> None:
        self.differences.append(Difference(game_id, what))

    def summary(self) -> str:
        found = len(self.differences)
        return (
            f"verified {self.games} games ({self.events} events) and {self.entries}"
            f" leaderboard entries, the pace rule at MIN_MEDIAN_MOVE_MS="
            f"{self.min_median_move_ms}: {found} difference{'s' if found != 1 else ''}"
        )
