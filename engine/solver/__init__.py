"""The engine's solver: a winning line, a proof that there is none, or "unknown".

``search`` holds :func:`solve` and its best-first search; ``moves`` the rules as tables and
the moves the search tries; ``encoding`` a position as the search's bytes and its canonical
key; ``heuristics`` the ordering; ``shorten`` makes a found line shorter.
"""

from engine.solver.encoding import (
    Layout,
    Path,
    State,
    canonical_key,
    card_code,
    code_card,
    layout,
    remap,
    state_of,
    trace,
)
from engine.solver.heuristics import HEURISTICS, INDEPENDENT, Weights
from engine.solver.search import UNKNOWN, UNWINNABLE, WINNABLE, Solution, solve

__all__ = [
    "HEURISTICS",
    "INDEPENDENT",
    "UNKNOWN",
    "UNWINNABLE",
    "WINNABLE",
    "Layout",
    "Path",
    "Solution",
    "State",
    "Weights",
    "canonical_key",
    "card_code",
    "code_card",
    "layout",
    "remap",
    "solve",
    "state_of",
    "trace",
]
