"""Players' names: when two of them look alike, and which characters no name may hold
because nobody sees them. The character data and the confusables are ICU's (PyICU).

Two names look alike when their keys are equal: the name under Unicode's NFKC_Casefold
(compatibility forms such as fullwidth letters, and case, folded away), then its
confusable skeleton (Unicode TS #39, section 4: Cyrillic `а` and Latin `a` share one).
TS #39's skeleton folds neither case nor compatibility forms, so NFKC_Casefold comes
first, as TS #39 advises for comparisons that ignore case. The database keeps each
player's key under a UNIQUE index (`players_name_key`): of two concurrent creations of
lookalike names only one commits, and the other's unique violation is the 409
`name-taken` (unique_name).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import asyncpg
import icu

from service.base.errors import Conflict

# the index that holds players' name keys unique (migration 0008)
NAME_KEY_INDEX: Final = "players_name_key"

_FOLD = icu.Normalizer2.getNFKCCasefoldInstance()
_SPOOF = icu.SpoofChecker()
# Unicode's Default_Ignorable_Code_Point (the Hangul fillers U+115F, U+1160, U+3164 and
# U+FFA0 among them, and the variation selectors) and the Braille blank U+2800, which
# renders as nothing but is a symbol
_INVISIBLE = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:]\\u2800]")
_INVISIBLE.freeze()


class NameTaken(Conflict):
    """The name looks like an existing player's."""

    slug = "name-taken"


def name_key(name: str) -> str:
    """What a name looks like: equal for names that look alike."""
    return str(_SPOOF.getSkeleton(0, _FOLD.normalize(name)))


def invisible(name: str) -> str | None:
    """The first character of `name` that nobody sees, or None."""
    for ch in name:
        if _INVISIBLE.contains(ch):
            return ch
    return None


def visible(name: str) -> str:
    """A name whose every character shows (pydantic's check of a new player's name)."""
    ch = invisible(name)
    if ch is not None:
        raise ValueError(
            f"a name cannot contain invisible characters such as U+{ord(ch):04X}"
        )
    return name


@contextmanager
def unique_name(name: str) -> Iterator[None]:
    """Around a statement that stores `name` with its key: the unique index's refusal
    becomes the 409 `name-taken` (the one place that says so)."""
    try:
        yield
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name != NAME_KEY_INDEX:
            raise
        raise NameTaken(
            f"the name {name!r} looks like another player's (compared without case, width"
            " or lookalike letters from other scripts); choose another"
        ) from None
