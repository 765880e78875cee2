"""The fixture the prover's tests share (test_bc_prove.py, test_bc_prove_relaxed.py): the
compiled prover, built once per version of bc_prove.c."""

from __future__ import annotations

import pytest

from tools.deal_tables import bc_prove


@pytest.fixture(scope="module")
def exe():
    # no skip without gcc: the tables depend on this program, so its absence is a failure
    return bc_prove.build()
