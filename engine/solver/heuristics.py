"""How the solver orders the positions it has yet to look at: features, weights, portfolios.

A position's features are (cards not yet up, cards above a lower card, sequence breaks,
low-weighted cards above a lower card, cells in use, empty columns, cards above the next
card each foundation wants); its score under a weight vector (:data:`Weights`, one weight
per feature and one for the moves made) is the dot product, the empty columns subtracted,
lowest first.  Each game has a portfolio of weight vectors (:data:`HEURISTICS`), one queue
each, that engine/solver/search.py takes positions from in turn.
"""

from __future__ import annotations

from typing import Final

# Per column, three measures of how much digging it needs, packed in one int (10 bits each,
# so that sums over the columns stay packed): the cards lying above a lower-ranked card
# (each must move before that card goes up), the cards not resting on a card they may be
# built on (breaks in the column's sequences), and the first measure weighted by how low the
# card underneath is (low cards are wanted first).
MASK: Final = 1023


def column_measures(col: bytes, parents: tuple[tuple[int, ...], ...]) -> int:
    """The three measures of a column (engine/solver/encoding.py's bytes), packed."""
    above_low = 0
    breaks = 0
    weighted = 0
    low = 99
    below = 0
    for code in col:
        rank = code >> 2
        if rank > low:
            above_low += 1
            weighted += 14 - low
        else:
            low = rank
        if below and below not in parents[code]:
            breaks += 1
        below = code
    return above_low | breaks << 10 | weighted << 20


# The heuristics, per game: each is a weight vector over (cards not yet up, cards above a
# lower card, sequence breaks, low-weighted cards above a lower card, cells in use, empty
# columns (subtracted), cards above the next card each foundation wants, moves made).  The
# search keeps one queue per heuristic and takes positions from them in turn (a portfolio:
# what one heuristic misses, another often finds), expanding each position once.  The
# weights were chosen by measuring deals 1-100 of each game (tools/deal_tables, bench).
Weights = tuple[int, int, int, int, int, int, int, int]
Features = tuple[int, int, int, int, int, int, int]
HEURISTICS: dict[str, tuple[Weights, ...]] = {
    "freecell": ((3, 2, 0, 0, 1, 1, 1, 0),),
    "bakers_game": ((3, 2, 0, 0, 1, 0, 0, 0),),
    "bakers_dozen": (
        (1, 2, 1, 0, 0, 0, 1, 0),
        (2, 4, 2, 0, 0, 0, 2, -1),
        (1, 3, 0, 0, 0, 0, 2, 0),
        (3, 0, 0, 1, 0, 0, 1, 0),
    ),
    "beleaguered_castle": ((3, 2, 0, 0, 0, 0, 1, 0),),
}
# games whose portfolio runs as independent searches, each with its own visited set (more
# memory and time for a proof, but what one search misses another often finds fast)
INDEPENDENT: Final = frozenset({"bakers_dozen"})
DEFAULT_HEURISTICS: Final[tuple[Weights, ...]] = ((3, 2, 0, 0, 1, 0, 0, 0),)


def portfolio_for(game: str, heuristics: tuple[Weights, ...] | None = None) -> tuple[Weights, ...]:
    """The weight vectors to search ``game`` with: ``heuristics`` if given, else its own."""
    return heuristics or HEURISTICS.get(game, DEFAULT_HEURISTICS)


def features(cols: list[bytes], cells: bytes, found: bytes, packed: int, depth: bool) -> Features:
    """A position's features; ``packed`` is the sum of its columns' measures, and the last
    feature (cards above the next card each foundation wants) is counted only if ``depth``
    (else 0: no weight vector of the portfolio reads it)."""
    above = 0
    if depth:
        for su in range(4):
            r = found[su]
            if r < 13:
                c = (r + 1) << 2 | su
                for col in cols:
                    x = col.find(c)
                    if x >= 0:
                        above += len(col) - 1 - x
                        break
    return (
        52 - sum(found),
        packed & MASK,
        packed >> 10 & MASK,
        packed >> 20,
        len(cells) - cells.count(0),
        cols.count(b""),
        above,
    )


def score(w: Weights, f: Features, made: int) -> int:
    """The priority of a position with features ``f``, ``made`` moves from the start, under
    weights ``w`` (lower comes first)."""
    return (
        w[0] * f[0]
        + w[1] * f[1]
        + w[2] * f[2]
        + w[3] * f[3]
        + w[4] * f[4]
        - w[5] * f[5]
        + w[6] * f[6]
        + w[7] * made
    )
