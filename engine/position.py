"""A position of one of the four games, and the rules common to all of them.

:class:`Position` holds the layout (``tableau``, ``cells``, ``foundations``) and the moves
played so far (``move_stack``).  Each game is a subclass in :mod:`engine.variants` that sets
a handful of class constants and, where needed, overrides the three rule hooks
:meth:`Position.can_build`, :meth:`Position.run_capacity` and :meth:`Position.is_auto_safe`.

Mutate a position only through :meth:`Position.play`, :meth:`Position.push` and
:meth:`Position.undo`: the list of legal moves is cached between changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Final, TypeVar

from engine.cards import DECK, KING, RANKS, SUITS, Card
from engine.errors import EngineError, IllegalMove, InvalidMove, NothingToUndo
from engine.moves import CELL_NAMES, COLUMN_NAMES, PILES, SINGLE, TARGETS, Move, move_of

P = TypeVar("P", bound="Position")

FOUNDATION_ORDER: Final = "HCDS"  # the order Freecell Solver prints foundations in
_FOUNDATION_RANKS: Final = "0" + RANKS
_PILE_ORDER: Final = {name: i for i, name in enumerate(("f", *CELL_NAMES, *COLUMN_NAMES))}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class LegalMoves:
    """The legal moves of a position at the time it was asked (a snapshot).

    Iteration lists moves grouped by source pile (columns left to right, then cells), then
    by count (ascending), each group in the order ``f``, the cell, the non-empty columns that
    take the card, the empty columns; it lists

    * every legal move to the foundations and onto non-empty columns;
    * every legal move into an empty column, each empty column separately;
    * a move into a cell once, to the first empty cell (``c1``..``c4``).

    FreeCell lists each legal run length separately.  Membership (``move in legal``) accepts
    every legal move, including one to any other empty cell or to ``c``.
    """

    __slots__ = ("_empty_cells", "_first_cell", "_moves", "_set")

    def __init__(self, moves: list[Move], first_cell: str | None, empty_cells: list[int]):
        self._moves = moves
        self._set: frozenset[Move] | None = None
        self._first_cell = first_cell
        self._empty_cells = empty_cells

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __len__(self) -> int:
        return len(self._moves)

    def __bool__(self) -> bool:
        return bool(self._moves)

    def __getitem__(self, index: int) -> Move:
        return self._moves[index]

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        moves = self._set
        if moves is None:
            moves = self._set = frozenset(self._moves)
        try:
            if move in moves:
                return True
            where = TARGETS.get(move.target)
        except TypeError:  # a Move built from unhashable junk
            return False
        if self._first_cell is not None and (
            where is not None
            and where[0] == "c"
            and (where[1] < 0 or where[1] in self._empty_cells)
        ):
            return move_of(move.source, self._first_cell, move.count) in moves
        return False

    def __repr__(self) -> str:
        return f"LegalMoves([{', '.join(map(str, self._moves))}])"


class Position:
    """The layout of a game in progress and the rules that govern it.

    Class constants (set by each game):

    ``name``            the game's id (``"freecell"``), also its key in ``VARIANTS``
    ``title``           its name for people (``"FreeCell"``)
    ``columns``         number of columns (``column_count`` too)
    ``cells``           number of cells on the class; ``cell_count`` is the same number under a
                        name that does not clash with the instance's ``cells`` list
    ``builds``          ``"alternate"`` | ``"suit"`` | ``"any"``: how columns build down
    ``empty_column_takes``  ``"any"`` | ``"none"``
    ``moves_runs``      whether several cards move at once (FreeCell's supermove)
    ``cell_to_cell``    whether a card may go from one cell to another
    ``auto_rule``       ``"other_colour"`` | ``"always"`` | ``"all_four"`` (automatic moves)
    ``column_word``     what a player calls a column in this game (``"column"``, ``"row"``)
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    columns: ClassVar[int] = 8
    column_count: ClassVar[int] = 8
    cell_count: ClassVar[int] = 0
    builds: ClassVar[str] = "alternate"
    empty_column_takes: ClassVar[str] = "any"
    moves_runs: ClassVar[bool] = False
    cell_to_cell: ClassVar[bool] = True
    auto_rule: ClassVar[str] = "all_four"
    column_word: ClassVar[str] = "column"
    deal_game_id: ClassVar[str] = ""

    tableau: list[list[Card]]
    cells: list[Card | None]
    foundations: dict[str, int]
    move_stack: list[Move]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # ``cells`` on the class is the number of cells, as on the instance it is the list.
        cls.column_count = cls.columns
        type.__setattr__(cls, "cells", cls.cell_count)

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

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(cls: type[P], number: int) -> P:
        """The opening position of deal ``number`` (1..MAX_DEAL, else InvalidDeal)."""
        from engine.deals import deal_layout

        columns, foundations = deal_layout(cls.deal_game_id or cls.name, number)
        pos = object.__new__(cls)
        pos.tableau = [list(column) for column in columns]
        pos.cells = [None] * cls.cell_count
        pos.foundations = dict(foundations)
        pos.move_stack = []
        pos._moved = []
        pos._legal = None
        return pos

    def copy(self: P, *, stack: bool = True) -> P:
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

    # ------------------------------------------------------------------ comparison, views

    def key(self) -> tuple[Any, ...]:
        """A hashable summary of the layout (not of the moves that led to it)."""
        return (
            tuple(tuple(column) for column in self.tableau),
            tuple(self.cells),
            tuple(self.foundations[s] for s in SUITS),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return type(self) is type(other) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} position: {self.foundation_cards} cards on the "
            f"foundations, {len(self.move_stack)} moves>"
        )

    def __str__(self) -> str:
        return self.board_text()

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

    def card_at(self, pile: str) -> Card | None:
        """The free card of a column or cell (None if empty); raises InvalidMove otherwise."""
        kind, index = self._pile(pile, source=True)
        if kind == "t":
            column = self.tableau[index]
            return column[-1] if column else None
        if kind == "c":
            return self.cells[index]
        raise InvalidMove("the foundations have no single free card; name a column or cell")

    def locate(self, card: Card | str) -> tuple[str, int]:
        """Where ``card`` is: (pile, cards above it + 1), pile ``"f"`` for a foundation."""
        card = self._as_card(card)
        for i, column in enumerate(self.tableau):
            if card in column:
                return COLUMN_NAMES[i], len(column) - column.index(card)
        for i, held in enumerate(self.cells):
            if held is card:
                return CELL_NAMES[i], 1
        if self.foundations[card.suit] >= card.rank:
            return "f", 1
        raise InvalidMove(f"{card.label} is nowhere in this position")

    # ------------------------------------------------------------------ rule hooks

    def can_build(self, card: Card, onto: Card) -> str | None:
        """None if ``card`` may go on ``onto`` at the top of a column, else the reason."""
        if self.builds == "alternate":
            if card.red == onto.red:
                return (
                    f"{card.label} cannot go on {onto.label}: "
                    "columns build down in alternating colours"
                )
            if onto.rank != card.rank + 1:
                return (
                    f"{card.label} cannot go on {onto.label}: columns build down one rank "
                    "at a time, in alternating colours"
                )
            return None
        if self.builds == "suit":
            if card.suit != onto.suit:
                return f"{card.label} cannot go on {onto.label}: columns build down in suit"
            if onto.rank != card.rank + 1:
                return (
                    f"{card.label} cannot go on {onto.label}: columns build down in suit, "
                    "one rank at a time"
                )
            return None
        if onto.rank != card.rank + 1:
            return (
                f"{card.label} cannot go on {onto.label}: a card goes only on a card one rank "
                "higher (any suit), and nothing goes on an ace"
            )
        return None

    def fits(self, card: Card, onto: Card) -> bool:
        """Whether ``card`` may be built on ``onto`` (:meth:`can_build` without the words)."""
        if onto.rank != card.rank + 1:
            return False
        if self.builds == "alternate":
            return card.red != onto.red
        if self.builds == "suit":
            return card.suit == onto.suit
        return True

    def run_capacity(self, target: str) -> int:
        """How many cards may move at once onto ``target`` (a column) in this position.

        FreeCell: (F + 1) * 2**E with F empty cells and E empty columns other than the target,
        counted before the move.  Games without supermoves: 1.
        """
        if not self.moves_runs:
            return 1
        free_cells = self.cells.count(None)
        empty_columns = sum(1 for column in self.tableau if not column)
        kind, index = TARGETS.get(target, ("", 0))
        if kind == "t" and index < self.column_count and not self.tableau[index]:
            empty_columns -= 1
        return (free_cells + 1) << empty_columns

    def is_auto_safe(self, card: Card) -> bool:
        """Whether ``card`` (assumed to fit its foundation) goes up automatically."""
        rank = card.rank
        if self.auto_rule == "always" or rank == 1:
            return True
        f = self.foundations
        need = rank - 1
        if self.auto_rule == "other_colour":
            if card.red:
                return f["S"] >= need and f["C"] >= need
            return f["H"] >= need and f["D"] >= need
        return f["S"] >= need and f["H"] >= need and f["D"] >= need and f["C"] >= need

    # ------------------------------------------------------------------ checking

    def _as_card(self, card: Card | str) -> Card:
        return card if isinstance(card, Card) else Card.parse(card)

    def _pile_word(self, kind: str, index: int) -> str:
        if kind == "t":
            return f"{self.column_word} {index + 1}"
        if kind == "c":
            return f"cell {index + 1}"
        return "the foundations"

    def _pile(self, name: object, *, source: bool) -> tuple[str, int]:
        table = PILES if source else TARGETS
        where = table.get(name) if isinstance(name, str) else None
        if where is None:
            role = "take cards from" if source else "put cards on"
            raise InvalidMove(f"{name!r} is not a pile to {role} in {self.title}")
        kind, index = where
        if kind == "t" and index >= self.column_count:
            raise InvalidMove(
                f"{self.title} has {self.column_count} {self.column_word}s "
                f"(t1..t{self.column_count}): there is no {name}"
            )
        if kind == "c" and (index >= self.cell_count or self.cell_count == 0):
            if self.cell_count == 0:
                raise InvalidMove(f"{self.title} has no cells: there is no {name}")
            raise InvalidMove(f"{self.title} has {self.cell_count} cells: there is no {name}")
        return where

    def check(self, move: Move) -> Move:
        """The move made concrete (``c`` -> the first empty cell) if legal.

        Raises InvalidMove if it is malformed for this game, IllegalMove (whose message names
        the rule) if the rules forbid it.
        """
        if not isinstance(move, Move):
            raise InvalidMove(f"{move!r} is not a move")
        skind, si = self._pile(move.source, source=True)
        tkind, ti = self._pile(move.target, source=False)
        count = move.count
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidMove(f"a move takes at least one card, not {count!r}")
        if move.source == move.target:
            raise InvalidMove(
                f"a move must go from one pile to another, not from {move.source} to itself"
            )
        if skind == "f":
            raise IllegalMove("a card on a foundation never leaves it")

        # the cards moved
        if skind == "t":
            column = self.tableau[si]
            if not column:
                raise IllegalMove(f"{self._pile_word('t', si)} is empty")
            if count > 1:
                if not self.moves_runs:
                    raise IllegalMove(f"one card at a time in {self.title}")
                if count > len(column):
                    raise IllegalMove(
                        f"{self._pile_word('t', si)} holds only {_plural(len(column), 'card')}"
                    )
                for k in range(len(column) - count, len(column) - 1):
                    reason = self.can_build(column[k + 1], column[k])
                    if reason is not None:
                        raise IllegalMove(
                            f"the top {count} cards of {self._pile_word('t', si)} are not a run "
                            f"that can move together: {reason}"
                        )
            card = column[-count]
        else:
            held = self.cells[si]
            if held is None:
                raise IllegalMove(f"cell {si + 1} is empty")
            if count > 1:
                raise IllegalMove("a cell holds one card: only one card can leave it")
            card = held

        # where they go
        target = move.target
        if tkind == "f":
            if count > 1:
                raise IllegalMove("cards go to the foundations one at a time")
            have = self.foundations[card.suit]
            if card.rank != have + 1:
                below = Card(card.rank - 1, card.suit)
                raise IllegalMove(f"{card.label} cannot go to its foundation before {below.label}")
        elif tkind == "c":
            if count > 1:
                raise IllegalMove("a cell holds one card")
            if skind == "c" and not self.cell_to_cell:
                raise IllegalMove(f"a card in a cell cannot go to another cell in {self.title}")
            if ti < 0:
                try:
                    ti = self.cells.index(None)
                except ValueError:
                    raise IllegalMove("every cell is full: a cell holds one card") from None
                target = CELL_NAMES[ti]
            else:
                held = self.cells[ti]
                if held is not None:
                    raise IllegalMove(f"a cell holds one card: cell {ti + 1} holds {held.label}")
        else:
            dest = self.tableau[ti]
            if dest:
                reason = self.can_build(card, dest[-1])
                if reason is not None:
                    raise IllegalMove(reason)
            elif self.empty_column_takes == "none":
                raise IllegalMove(f"an empty {self.column_word} stays empty in {self.title}")
            if count > 1:
                capacity = self.run_capacity(target)
                if count > capacity:
                    raise IllegalMove(self._capacity_reason(count, capacity, not dest))
        return move_of(move.source, target, count)

    def _capacity_reason(self, count: int, capacity: int, into_empty: bool) -> str:
        free_cells = self.cells.count(None)
        empty = sum(1 for column in self.tableau if not column) - (1 if into_empty else 0)
        where = "into an empty column" if into_empty else "onto a column"
        extra = " (the column moved into does not count)" if into_empty else ""
        return (
            f"with {_plural(free_cells, 'empty cell')} and {_plural(empty, 'other empty column')}"
            f"{extra} at most {_plural(capacity, 'card')} can move {where}, not {count}"
        )

    def is_legal(self, move: Move) -> bool:
        """Whether :meth:`check` accepts ``move``."""
        try:
            self.check(move)
        except EngineError:
            return False
        return True

    # ------------------------------------------------------------------ move generation

    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal move (see :class:`LegalMoves` for what iteration lists)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return legal

    def _onto_table(self) -> dict[Card, tuple[Card, ...]]:
        """For each card, the cards it may be built on (from :meth:`fits`), per game."""
        cls = type(self)
        table: dict[Card, tuple[Card, ...]] | None = cls.__dict__.get("_onto_cache")
        if table is None:
            table = {card: tuple(o for o in DECK if self.fits(card, o)) for card in DECK}
            type.__setattr__(cls, "_onto_cache", table)
        return table

    def _generate(self) -> LegalMoves:
        tableau = self.tableau
        cells = self.cells
        found = self.foundations
        onto = self._onto_table()
        moves: list[Move] = []
        append = moves.append
        tops: dict[Card, int] = {}
        empty_cols: list[int] = []
        for i, column in enumerate(tableau):
            if column:
                tops[column[-1]] = i
            else:
                empty_cols.append(i)
        top_of = tops.get
        into_empty = empty_cols if self.empty_column_takes != "none" else []
        empty_cells = [i for i, held in enumerate(cells) if held is None]
        first_cell = CELL_NAMES[empty_cells[0]] if empty_cells else None
        names = COLUMN_NAMES
        if self.moves_runs:
            unit = len(empty_cells) + 1
            cap_onto = unit << len(empty_cols)
            cap_into = unit << (len(empty_cols) - 1) if empty_cols else 0
        else:
            cap_onto = cap_into = 1

        for si, column in enumerate(tableau):
            if not column:
                continue
            source = names[si]
            single = SINGLE[source]
            card = column[-1]
            if found[card.suit] == card.rank - 1:
                append(single["f"])
            if first_cell is not None:
                append(single[first_cell])
            for o in onto[card]:
                ti = top_of(o)
                if ti is not None:
                    append(single[names[ti]])
            for ti in into_empty:
                append(single[names[ti]])
            if cap_onto > 1:
                height = len(column)
                count = 1
                while count < height and count < cap_onto and column[-count - 1] in onto[card]:
                    count += 1
                    card = column[-count]
                    for o in onto[card]:
                        ti = top_of(o)
                        if ti is not None:
                            append(move_of(source, names[ti], count))
                    if count <= cap_into:
                        for ti in into_empty:
                            append(move_of(source, names[ti], count))

        cell_to_cell = first_cell is not None and self.cell_to_cell
        for si, held in enumerate(cells):
            if held is None:
                continue
            single = SINGLE[CELL_NAMES[si]]
            if found[held.suit] == held.rank - 1:
                append(single["f"])
            if cell_to_cell:
                append(single[first_cell])  # type: ignore[index]
            for o in onto[held]:
                ti = top_of(o)
                if ti is not None:
                    append(single[names[ti]])
            for ti in into_empty:
                append(single[names[ti]])
        return LegalMoves(moves, first_cell, empty_cells)

    def destinations(self, card_or_source: Card | str) -> list[str]:
        """The piles the card (with the cards on it) may legally go to, e.g. ``["f", "t4"]``.

        Takes a card (or its text) or a source pile name (its free card).  Every empty cell
        is named.  A card that cannot move at all, or is on a foundation, has none.
        """
        if isinstance(card_or_source, str) and card_or_source in PILES:
            kind, _ = self._pile(card_or_source, source=True)
            if kind == "f":
                return []
            source, count = card_or_source, 1
        else:
            source, count = self.locate(card_or_source)
            if source == "f":
                return []
        targets = [m.target for m in self.legal_moves if m.source == source and m.count == count]
        result: list[str] = []
        for target in sorted(targets, key=_PILE_ORDER.__getitem__):
            if target.startswith("c"):
                result.extend(
                    name for name, held in zip(CELL_NAMES, self.cells, strict=False) if held is None
                )
            else:
                result.append(target)
        return result

    def move_for_card(self, card: Card | str, target: str) -> Move:
        """The legal move taking ``card`` and the cards on top of it to ``target``.

        ``target`` is a pile name, ``c`` (first empty cell) or ``auto``: the card's foundation
        if it fits, else the first empty cell (only a single free card from a column goes
        to a cell).  Raises IllegalMove with the reason when there is no such legal move.
        """
        card = self._as_card(card)
        source, count = self.locate(card)
        if source == "f":
            raise IllegalMove(
                f"{card.label} is on its foundation: a card on a foundation never leaves it"
            )
        if count > 1 and not self.moves_runs:
            raise IllegalMove(
                f"{card.label} is not free ({_plural(count - 1, 'card')} on it): "
                f"one card at a time in {self.title}"
            )
        if target != "auto":
            return self.check(Move.make(source, target, count))
        if count > 1:
            raise IllegalMove(
                f"{card.label} has {_plural(count - 1, 'card')} on it: only a single free "
                "card goes to its foundation or a cell"
            )
        if self.foundations[card.suit] == card.rank - 1:
            return move_of(source, "f")
        below = Card(card.rank - 1, card.suit).label
        reason = f"{card.label} cannot go to its foundation before {below}"
        if source.startswith("c"):
            raise IllegalMove(reason)
        if self.cell_count == 0:
            raise IllegalMove(f"{reason}, and {self.title} has no cells")
        if None not in self.cells:
            raise IllegalMove(f"{reason}, and every cell is full")
        return move_of(source, CELL_NAMES[self.cells.index(None)])

    # ------------------------------------------------------------------ playing

    def play(self, move: Move) -> Move:
        """Check ``move``, apply it, record it; returns the concrete move."""
        move = self.check(move)
        self.push(move)
        return move

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

    @property
    def outcome(self) -> str:
        """``"won"`` (52 cards up), ``"blocked"`` (no legal move) or ``"playing"``."""
        if self.foundation_cards == 52:
            return "won"
        if not self.legal_moves:
            return "blocked"
        return "playing"

    # ------------------------------------------------------------------ board text

    def board_text(self) -> str:
        """The layout in Freecell Solver's board format (``fc-solve`` reads it back)."""
        f = self.foundations
        lines = ["Foundations: " + " ".join(f"{s}-{_FOUNDATION_RANKS[f[s]]}" for s in "HCDS")]
        if self.cell_count:
            lines.append("Freecells: " + " ".join("-" if c is None else c.text for c in self.cells))
        for column in self.tableau:
            lines.append(": " + " ".join(card.text for card in column) if column else ":")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_board_text(cls: type[P], text: str) -> P:
        """A position from Freecell Solver's board format.

        Accepts what :meth:`board_text` writes and what ``fc-solve -p`` prints: an optional
        ``Foundations:`` line (``H-0 C-5 D-A S-K``), an optional ``Freecells:`` line (cards
        and ``-`` for an empty cell, or fc-solve's fixed-width fields), then one column per
        line, buried card first, optionally after ``:``; blank lines and ``#`` comments are
        skipped, missing trailing columns are empty.  Every card must appear exactly once
        (counting those under a foundation's top card).  InvalidMove if malformed.
        """
        from engine.boardtext import parse_board

        tableau, cells, foundations = parse_board(text, cls.column_count, cls.cell_count)
        pos = cls(tableau, cells, foundations)
        seen: dict[Card, int] = {}
        for column in pos.tableau:
            for card in column:
                seen[card] = seen.get(card, 0) + 1
        for held in pos.cells:
            if held is not None:
                seen[held] = seen.get(held, 0) + 1
        for suit, top in pos.foundations.items():
            for rank in range(1, top + 1):
                card = Card(rank, suit)
                seen[card] = seen.get(card, 0) + 1
        twice = sorted(card.text for card, n in seen.items() if n > 1)
        if twice:
            raise InvalidMove(f"board text has cards twice: {' '.join(twice)}")
        if len(seen) != 52:
            from engine.cards import DECK

            missing = [card.text for card in DECK if card not in seen]
            raise InvalidMove(f"board text lacks cards: {' '.join(missing)}")
        return pos
