"""Checking moves and listing the legal ones, by the rule book (engine/rules.py).

:meth:`Checked.check` says why a move is malformed (:class:`InvalidMove`) or against the rules
(:class:`IllegalMove`, whose message names the rule); :attr:`Checked.legal_moves` lists them
(a :class:`~engine.moves.LegalMoves`), and :attr:`Checked.outcome` says whether any is left.
"""

from __future__ import annotations

from engine.cards import DECK, Card
from engine.errors import IllegalMove, InvalidMove
from engine.moves import CELL_NAMES, COLUMN_NAMES, PILES, SINGLE, TARGETS, LegalMoves, Move, move_of
from engine.state import State
from engine.status import BLOCKED, PLAYING, WON

__all__ = ["Checked", "LegalMoves"]  # LegalMoves: its home is engine/moves.py


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class Checked(State):
    """A position that checks moves and lists the legal ones."""

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
            raise IllegalMove(
                f"a move goes from one pile to another: {self._pile_word(skind, si)} cannot"
                " take its own card"
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
                            f"that can move together: they hold {column[k + 1].label} on "
                            f"{column[k].label}, and {reason}"
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
            if skind == "c":
                reason = self.can_move_between_cells()
                if reason is not None:
                    raise IllegalMove(reason)
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
            else:
                reason = self.can_fill_empty(card)
                if reason is not None:
                    raise IllegalMove(reason)
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

    def run_capacity(self, target: str) -> int:
        """How many cards may move at once onto ``target`` (a column) in this position: the
        rule book's :meth:`max_run` with the empty cells and the empty columns other than
        the target, counted before the move."""
        free_cells = self.cells.count(None)
        empty_columns = sum(1 for column in self.tableau if not column)
        kind, index = TARGETS.get(target, ("", 0))
        if kind == "t" and index < self.column_count and not self.tableau[index]:
            empty_columns -= 1
        return self.max_run(free_cells, empty_columns)

    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal move (see :class:`LegalMoves` for what iteration lists)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return legal

    def _onto_table(self) -> dict[Card, tuple[Card, ...]]:
        """For each card, the cards it may be built on (from :meth:`can_build`), per game."""
        cls = type(self)
        table: dict[Card, tuple[Card, ...]] | None = cls.__dict__.get("_onto_cache")
        if table is None:
            table = {
                card: tuple(o for o in DECK if self.can_build(card, o) is None) for card in DECK
            }
            type.__setattr__(cls, "_onto_cache", table)
        return table

    def _fill_table(self) -> frozenset[Card]:
        """The cards that may go into an empty column (from :meth:`can_fill_empty`)."""
        cls = type(self)
        table: frozenset[Card] | None = cls.__dict__.get("_fill_cache")
        if table is None:
            table = frozenset(card for card in DECK if self.can_fill_empty(card) is None)
            type.__setattr__(cls, "_fill_cache", table)
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
        fills = self._fill_table()
        empty_cells = [i for i, held in enumerate(cells) if held is None]
        first_cell = CELL_NAMES[empty_cells[0]] if empty_cells else None
        names = COLUMN_NAMES
        cap_onto = self.max_run(len(empty_cells), len(empty_cols))
        cap_into = self.max_run(len(empty_cells), len(empty_cols) - 1) if empty_cols else 0

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
            if card in fills:
                for ti in empty_cols:
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
                    if count <= cap_into and card in fills:
                        for ti in empty_cols:
                            append(move_of(source, names[ti], count))

        cell_to_cell = first_cell is not None and self.can_move_between_cells() is None
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
            if held in fills:
                for ti in empty_cols:
                    append(single[names[ti]])
        return LegalMoves(moves, first_cell, empty_cells)

    @property
    def outcome(self) -> str:
        """``"won"`` (52 cards up), ``"blocked"`` (no legal move) or ``"playing"``
        (engine/status.py)."""
        if self.foundation_cards == 52:
            return WON
        if not self._has_move():
            return BLOCKED
        return PLAYING

    def _has_move(self) -> bool:
        """Whether any move is legal. A free card and an empty cell tell at once (a column's
        free card may always go to an empty cell); otherwise the moves are listed."""
        if self._legal is None and None in self.cells and any(self.tableau):
            return True
        return bool(self.legal_moves)
