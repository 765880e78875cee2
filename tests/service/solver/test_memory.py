"""A search worker gives Freecell Solver's memory back once it holds more than KEEP_MB
after a search (service/solver/pool.py, fcsolve.give_back): a solver keeps the states of
its largest search, so a worker that kept its solvers grew to the high-water mark of all
its searches and held it."""

from __future__ import annotations

import pytest

from engine import VARIANTS
from service.solver import fcsolve, pool
from service.solver.pool import search_board

# a Beleaguered Castle deal whose search takes the library some 150 MB, then wins
DEAL = 10612


def test_a_worker_over_its_keep_gives_the_librarys_memory_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not fcsolve.available():
        pytest.skip("Freecell Solver's library is not installed (make test installs it as root)")
    board = VARIANTS["beleaguered_castle"].deal(DEAL).board_text()
    monkeypatch.setattr(pool, "KEEP_MB", 1 << 20)  # under the mark: the solvers are kept
    before = pool.resident_mb()
    first = search_board("beleaguered_castle", board, 5.0, True)
    held = pool.resident_mb()
    assert fcsolve._instances and held > before + 50, (before, held)
    monkeypatch.setattr(pool, "KEEP_MB", 0)  # over it: given back after the search
    again = search_board("beleaguered_castle", board, 5.0, True)
    assert not fcsolve._instances
    assert pool.resident_mb() < held - 50, (held, pool.resident_mb())
    assert first[0] == again[0] == "winnable" and again[1] is not None
