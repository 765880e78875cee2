"""The store's tests' fixture (tests/service/database/helpers.py)."""

from .helpers import store

__all__ = ["store"]
