"""The verdict cache: verdicts by canonical position, and the winning lines they come with.

Positions that differ only in the order of columns or cells share one entry (a line is
remapped to the columns and cells of the position asked about), least recently used first
out.  A winning line is cached for every position along it, so following hints, undo and
redo answer at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Move, Position
from engine.solver import UNKNOWN, WINNABLE, Layout, canonical_key, layout, remap
from service.base.backend import Lru
from service.solver.lines import follows
from service.solver.pool import Steps

Key = tuple[str, bytes]
"""(variant, canonical key): one for all the positions alike but for the order of columns
or cells."""


def key_of(position: Position) -> Key:
    return (position.name, canonical_key(position))


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer for one position: ``line`` is the winning line from it (winnable only)."""

    verdict: str
    line: tuple[Move, ...] | None
    solver: str
    cached: bool = False

    @property
    def moves_to_win(self) -> int | None:
        return None if self.line is None else len(self.line)


@dataclass(frozen=True, slots=True)
class Entry:
    """What the cache holds for one canonical position."""

    verdict: str
    line: tuple[Move, ...] | None  # the whole line of the search that found it
    offset: int  # where in ``line`` this position stands
    layout: Layout  # the columns and cells as ``line`` expects them
    budget: float  # an unknown verdict holds for budgets up to this one
    solver: str

    def holds(self, budget: float) -> bool:
        """Whether this answers a request with ``budget`` seconds (no new search): an
        unknown verdict holds for budgets up to its search's (which a request's deadline
        may have cut a little short)."""
        return self.verdict != UNKNOWN or self.budget >= 0.95 * budget

    def answer(self, position: Position, cached: bool) -> Verdict:
        """The verdict this gives ``position``: its line from there, in its columns."""
        if self.verdict != WINNABLE or self.line is None:
            return Verdict(self.verdict, None, self.solver, cached)
        rest = self.line[self.offset :]
        here = layout(position)
        if here != self.layout:
            mapped = remap(rest, self.layout, here)
            if mapped is None:  # cannot happen for equal canonical keys; search again
                return Verdict(UNKNOWN, None, self.solver, cached)
            rest = mapped
        return Verdict(WINNABLE, rest, self.solver, cached)


class VerdictCache(Lru[Key, Entry]):
    """At most ``capacity`` entries, the least recently used first out."""

    def __contains__(self, key: Key) -> bool:
        return key in self._items

    def known(self, key: Key) -> Entry | None:
        """The entry for ``key``, if any, leaving the order of use as it is (``get`` makes
        it the most recently used)."""
        return self._items.get(key)

    def remember_line(self, variant: str, entry: Entry, steps: Steps) -> None:
        """Cache every position along a winning line (each with the rest of the line)."""
        for i, (canonical, where) in enumerate(steps):
            key = (variant, canonical)
            known = self.known(key)
            if known is None or known.verdict == UNKNOWN:
                self[key] = Entry(WINNABLE, entry.line, i + 1, where, 0.0, entry.solver)

    def remember_after_autoplay(self, position: Position, found: Verdict) -> None:
        """Cache the position a player reaches by playing the line's first move with autoplay
        on: the automatic moves after it may put cards up in another order than the line
        does, so that position may not lie on the line.  The rest of the line, less the
        moves of the cards autoplay put up, wins from there (such a card can carry no
        other card, so no move needed it); checked by the rules before it is kept."""
        line = found.line
        if found.verdict != WINNABLE or not line or any(m.count > 1 for m in line):
            return
        after = position.copy()
        after.push(line[0])
        up = set()
        while (move := after.auto_move()) is not None:
            up.add(after.card_at(move.source))
            after.push(move)
        key = key_of(after)
        known = self.known(key)
        if not up or (known is not None and known.verdict != UNKNOWN):
            return
        walk = position.copy()
        walk.push(line[0])
        rest = []
        for move in line[1:]:
            card = walk.card_at(move.source)
            walk.push(move)
            if card not in up:
                rest.append(move)
        if follows(after, rest):
            self[key] = Entry(WINNABLE, tuple(rest), 0, layout(after), 0.0, found.solver)

    def peek(self, position: Position) -> Verdict | None:
        """The cached verdict, if any (no search)."""
        entry = self.get(key_of(position))
        return None if entry is None else entry.answer(position, True)
