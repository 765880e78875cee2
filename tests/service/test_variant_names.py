"""The variants a request may name are the engine's: a variant registered in the engine
and missing from the service's list would be a silent 400 (docs/architecture.md, where a
new variant goes)."""

from __future__ import annotations

from typing import get_args

from engine import VARIANTS
from service.base.requests import VariantName


def test_the_service_names_every_variant_of_the_engine() -> None:
    assert sorted(get_args(VariantName)) == sorted(VARIANTS)
