"""The rule book: what each game decides, as methods its class overrides.

A game in :mod:`engine.variants` is a subclass of :class:`engine.position.Position` that
sets its layout (``columns``, ``cell_count``) and overrides the rule methods below.  The
position checks and lists moves with them, and the solver builds its tables from the same
methods (:mod:`engine.solver.moves`), so a rule changed here changes both.

The rule methods are class methods: they depend on the game, not on one position, and the
solver asks them without a position.  The building blocks most games share are functions
here (:func:`alternate_colours`, :func:`same_suit`, :func:`any_suit`, :func:`other_colour_up`,
:func:`all_suits_up`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from engine.cards import Card
from engine.moves import MAX_CELLS, MAX_COLUMNS

# -------------------------------------------------------------------- building down


def alternate_colours(card: Card, onto: Card) -> str | None:
    """FreeCell's columns: one rank lower, the other colour. (A refusal names the whole
    rule when the rank is wrong, so that a player who mends the colour is not refused
    again for the rank.)"""
    if onto.rank != card.rank + 1:
        return (
            f"{card.label} cannot go on {onto.label}: columns build down one rank at a time, "
            "in alternating colours"
        )
    if card.red == onto.red:
        return f"{card.label} cannot go on {onto.label}: columns build down in alternating colours"
    return None


def same_suit(card: Card, onto: Card) -> str | None:
    """Baker's Game's columns: one rank lower, the same suit (a refusal names the whole
    rule when the rank is wrong)."""
    if onto.rank != card.rank + 1:
        return (
            f"{card.label} cannot go on {onto.label}: columns build down in suit, "
            "one rank at a time"
        )
    if card.suit != onto.suit:
        return f"{card.label} cannot go on {onto.label}: columns build down in suit"
    return None


def any_suit(card: Card, onto: Card) -> str | None:
    """Baker's Dozen's and Beleaguered Castle's: one rank lower, whatever the suit."""
    if onto.rank == 1:
        return f"{card.label} cannot go on {onto.label}: nothing goes on an ace"
    if onto.rank != card.rank + 1:
        return (
            f"{card.label} cannot go on {onto.label}: a card goes only on a card one rank "
            "higher (any suit)"
        )
    return None


# -------------------------------------------------------------------- playing up by itself


def other_colour_up(card: Card) -> dict[str, int]:
    """FreeCell: a card goes up by itself once both suits of the other colour are up to
    one rank below it (aces at once)."""
    if card.rank == 1:
        return {}
    need = card.rank - 1
    return {"S": need, "C": need} if card.red else {"H": need, "D": need}


def all_suits_up(card: Card) -> dict[str, int]:
    """Baker's Dozen, Beleaguered Castle: once every suit is up to one rank below it."""
    if card.rank == 1:
        return {}
    need = card.rank - 1
    return {"S": need, "H": need, "D": need, "C": need}


# -------------------------------------------------------------------- the book


class RuleBook:
    """The rules a game decides (each game's class overrides every method)."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    columns: ClassVar[int] = 8
    cell_count: ClassVar[int] = 0
    column_word: ClassVar[str] = "column"  # what a player calls a column ("row")

    def __init_subclass__(cls, **kwargs: object) -> None:
        """A layout the piles' names reach (engine/moves.py: t1..t13, c1..c4), refused when
        its class is made rather than at its first move."""
        super().__init_subclass__(**kwargs)
        if not 1 <= cls.columns <= MAX_COLUMNS or not 0 <= cls.cell_count <= MAX_CELLS:
            raise TypeError(
                f"{cls.__name__} has {cls.columns} columns and {cls.cell_count} cells: piles"
                f" are named for {MAX_COLUMNS} columns and {MAX_CELLS} cells at most"
                " (MAX_COLUMNS, MAX_CELLS in engine/moves.py)"
            )

    @classmethod
    def can_build(cls, card: Card, onto: Card) -> str | None:
        """None if ``card`` may go on ``onto`` at the top of a column, else the reason."""
        raise NotImplementedError

    @classmethod
    def can_fill_empty(cls, card: Card) -> str | None:
        """None if ``card`` (with the cards on it) may go into an empty column, else why."""
        raise NotImplementedError

    @classmethod
    def can_move_between_cells(cls) -> str | None:
        """None if a card may go from one cell to another, else why."""
        raise NotImplementedError

    @classmethod
    def max_run(cls, free_cells: int, empty_columns: int) -> int:
        """How many cards may move at once onto a column, with that many empty cells and
        empty columns (not counting a target column that is empty)."""
        raise NotImplementedError

    @classmethod
    def auto_needs(cls, card: Card) -> Mapping[str, int]:
        """The foundation heights, per suit, at which ``card`` (once it fits its foundation)
        goes up by itself: RULES.md's automatic moves.  Empty: at once."""
        raise NotImplementedError
