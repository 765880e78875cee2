"""A position's state: where the cards are, the moves that led there, and taking them back.

:class:`State` holds the layout (``tableau``, ``cells``, ``foundations``) and the moves played
so far (``move_stack``), applies a move known to be legal (:meth:`State.push`) and takes
the last one back exactly (:meth:`State.undo`).  What is legal is the rule book's
(engine/rules.py) and the checking's (engine/checking.py, a layer above this one, which
lists the legal moves as an engine/moves.py :class:`LegalMoves`; this layer keeps that list
until the position changes); the game classes are in engine/variants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from engine.cards import KING, SUITS, Card
from engine.errors import InvalidMove, NothingToUndo
from engine.moves import CELL_NAMES, COLUMN_NAMES, PILES, TARGETS, LegalMoves, Move, move_of
from engine.rules import RuleBook

S = TypeVar("S", bound="State")


class State(RuleBook):
    """The layout of a game in progress and its moves so far.

    Class constants, set by each game (engine/rules.py has the rule methods):

    ``name``, ``title``  the game's id (``"freecell"``, its key in ``VARIANTS``) and its name
    ``columns``          number of columns (``column_count`` too)
    ``cell_count``       number of cells (``cells`` on the class is the same number)
    ``column_word``      what a player calls a column in this game (``"column"``, ``"row"``)
    ``moves_runs``       whether several cards ever move at once (from ``max_run``)
    """

    column_count: ClassVar[int] = 8
    moves_runs: ClassVar[bool] = False

    tableau: list[list[Card]]
    cells: list[Card | None]
    foundations: dict[str, int]
    move_stack: list[Move]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.name:
            return
        # ``cells`` on the class is the number of cells, as on the instance it is the list.
        cls.column_count = cls.columns
        type.__setattr__(cls, "cells", cls.cell_count)
        cls.moves_runs = cls.max_run(cls.cell_count, cls.columns) > 1

    def __init__(
        self,
        tableau: Sequence[Sequence[Card]],
        cells: Sequence[Card | None] | None = None,
        foundations: Mapping[str, int] | None = None,
    ) -> None:
        if not self.name:
            raise TypeError("Position is abstract: use a game class such as FreeCell")
        if len(tableau) != self.column_count:
            raise InvalidMove(
                f"{self.title} has {self.column_count} {self.column_word}s, not {len(tableau)}"
            )
        self.tableau = [list(column) for column in tableau]
        if cells is None:
            cells = [None] * self.cell_count
        if len(cells) != self.cell_count:
            raise InvalidMove(f"{self.title} has {self.cell_count} cells, not {len(cells)}")
        self.cells = list(cells)
        self.foundations = dict.fromkeys(SUITS, 0)
        if foundations:
            for suit, rank in foundations.items():
                if suit not in self.foundations or not 0 <= rank <= KING:
                    raise InvalidMove(f"bad foundation {suit}-{rank}")
                self.foundations[suit] = rank
        self.move_stack = []
        self._moved: list[Card] = []
        self._legal: LegalMoves | None = None

    @classmethod
    def deal(cls: type[S], number: int) -> S:
        """The opening position of deal ``number`` (1..MAX_DEAL, else InvalidDeal)."""
        from engine.deals import deal_layout

        columns, foundations = deal_layout(cls.name, number)
        pos = object.__new__(cls)
        pos.tableau = [list(column) for column in columns]
        pos.cells = [None] * cls.cell_count
        pos.foundations = dict(foundations)
        pos.move_stack = []
        pos._moved = []
        pos._legal = None
        return pos

    def copy(self: S, *, stack: bool = True) -> S:
        """An independent copy: the layout, and the move stack unless ``stack`` is false
        (then the copy cannot undo, and costs the layout only, however long the game)."""
        new = object.__new__(type(self))
        new.tableau = [column[:] for column in self.tableau]
        new.cells = self.cells[:]
        new.foundations = self.foundations.copy()
        new.move_stack = self.move_stack[:] if stack else []
        new._moved = self._moved[:] if stack else []
        new._legal = self._legal
        return new

    __copy__ = copy

    def key(self) -> tuple[Any, ...]:
        """A hashable summary of the layout (not of the moves that led to it)."""
        return (
            tuple(tuple(column) for column in self.tableau),
            tuple(self.cells),
            tuple(self.foundations[s] for s in SUITS),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return type(self) is type(other) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} position: {self.foundation_cards} cards on the "
            f"foundations, {len(self.move_stack)} moves>"
        )

    @property
    def foundation_cards(self) -> int:
        """How many cards are on the foundations (0..52)."""
        f = self.foundations
        return f["S"] + f["H"] + f["D"] + f["C"]

    def to_dict(self) -> dict[str, Any]:
        """The layout as the HTTP contract's ``state``."""
        return {
            "tableau": [[card.text for card in column] for column in self.tableau],
            "cells": [None if card is None else card.text for card in self.cells],
            "foundations": dict(self.foundations),
        }

    @classmethod
    def from_dict(cls: type[S], data: Mapping[str, Any]) -> S:
        """A layout as :meth:`to_dict` writes it (InvalidMove when it is not one of this
        game's: another shape, a card that is not one, a card twice or missing)."""
        try:
            tableau = [[Card.parse(text) for text in column] for column in data["tableau"]]
            cells = [None if text is None else Card.parse(text) for text in data["cells"]]
            foundations = {suit: data["foundations"][suit] for suit in SUITS}
        except (KeyError, TypeError) as exc:
            raise InvalidMove(f"not a layout of {cls.title}: {exc!r}") from None
        if not all(type(rank) is int for rank in foundations.values()):
            raise InvalidMove(f"not a layout of {cls.title}: foundations {foundations!r}")
        position = cls(tableau, cells, foundations)
        cards = [c for column in position.tableau for c in column]
        cards += [c for c in position.cells if c is not None]
        cards += [Card(rank, suit) for suit, top in position.foundations.items()
                  for rank in range(1, top + 1)]  # fmt: skip
        if len(cards) != 52 or len(set(cards)) != 52:
            raise InvalidMove(f"not a layout of {cls.title}: each of the 52 cards once")
        return position

    def push(self, move: Move) -> Move:
        """Apply a move known to be legal, without checking it; returns the concrete move."""
        skind, si = PILES[move.source]
        tkind, ti = TARGETS[move.target]
        count = move.count
        if skind == "t":
            column = self.tableau[si]
            if count == 1:
                card = column.pop()
                run = None
            else:
                run = column[-count:]
                del column[-count:]
                card = run[0]
        else:
            held = self.cells[si]
            assert held is not None, f"no card in {move.source}"
            card = held
            self.cells[si] = None
            run = None
        if tkind == "f":
            self.foundations[card.suit] = card.rank
        elif tkind == "c":
            if ti < 0:
                ti = self.cells.index(None)
                move = move_of(move.source, CELL_NAMES[ti], count)
            self.cells[ti] = card
        elif run is None:
            self.tableau[ti].append(card)
        else:
            self.tableau[ti].extend(run)
        self.move_stack.append(move)
        self._moved.append(card)
        self._legal = None
        return move

    def undo(self) -> Move:
        """Take back the last move exactly; returns it.  NothingToUndo if there is none."""
        if not self.move_stack:
            raise NothingToUndo("no move has been played")
        move = self.move_stack.pop()
        card = self._moved.pop()
        skind, si = PILES[move.source]
        tkind, ti = TARGETS[move.target]
        count = move.count
        if tkind == "f":
            self.foundations[card.suit] = card.rank - 1
            run = None
        elif tkind == "c":
            self.cells[ti] = None
            run = None
        elif count == 1:
            self.tableau[ti].pop()
            run = None
        else:
            column = self.tableau[ti]
            run = column[-count:]
            del column[-count:]
        if skind == "t":
            if run is None:
                self.tableau[si].append(card)
            else:
                self.tableau[si].extend(run)
        else:
            self.cells[si] = card
        self._legal = None
        return move

    def moved_card(self, index: int = -1) -> Card:
        """The card a recorded move took (the deepest of a run), by index in move_stack."""
        return self._moved[index]

    def is_auto_safe(self, card: Card) -> bool:
        """Whether ``card`` (assumed to fit its foundation) goes up automatically here."""
        f = self.foundations
        return all(f[suit] >= need for suit, need in self.auto_needs(card).items())

    def auto_move(self) -> Move | None:
        """The next automatic move to the foundations (RULES.md's table), or None."""
        found = self.foundations
        safe = self.is_auto_safe
        for si, column in enumerate(self.tableau):
            if column:
                card = column[-1]
                if found[card.suit] == card.rank - 1 and safe(card):
                    return move_of(COLUMN_NAMES[si], "f")
        for si, held in enumerate(self.cells):
            if held is not None and found[held.suit] == held.rank - 1 and safe(held):
                return move_of(CELL_NAMES[si], "f")
        return None

    @property
    def is_won(self) -> bool:
        return self.foundation_cards == 52
