"""What the web page asks of a position: where a card is, where it may go, the move that
takes it there (a click or a drag names a card, not a move)."""

from __future__ import annotations

from typing import Final

from engine.cards import Card
from engine.checking import Checked, _plural
from engine.errors import IllegalMove, InvalidMove
from engine.moves import CELL_NAMES, COLUMN_NAMES, PILES, Move, move_of

_PILE_ORDER: Final = {name: i for i, name in enumerate(("f", *CELL_NAMES, *COLUMN_NAMES))}
_SOURCE_ORDER: Final = {name: i for i, name in enumerate((*COLUMN_NAMES, *CELL_NAMES))}


class PageHelpers(Checked):
    """A position that answers the page's questions."""

    def listed_moves(self) -> list[Move]:
        """The legal moves in the order a list shows them: by source pile (columns, then
        cells), then count, then destination (the foundation, cells, columns).
        (`legal_moves` is in the order they are found.)"""
        return sorted(
            self.legal_moves,
            key=lambda m: (_SOURCE_ORDER[m.source], m.count, _PILE_ORDER[m.target]),
        )

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

    @property
    def _auto_places(self) -> str:
        """Where `auto` sends a card, in a refusal's words."""
        return "its foundation or a cell" if self.cell_count else "its foundation"

    def move_to_auto(self, source: str, count: int = 1) -> Move:
        """The move of ``count`` cards from the pile ``source`` to ``auto``: its free card to
        its foundation, else to a cell (move_for_card). Raises IllegalMove when the pile is
        empty or ``count`` is more than the one card that goes there."""
        card = self.card_at(source)
        if card is None:
            raise IllegalMove(f"{source} is empty: there is no card to move")
        if count > 1:
            raise IllegalMove(
                f"{_plural(count, 'card')} from {source} cannot go to 'auto': only a single "
                f"free card goes to {self._auto_places}"
            )
        return self.move_for_card(card, "auto")

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
                f"card goes to {self._auto_places}"
            )
        if self.foundations[card.suit] == card.rank - 1:
            return move_of(source, "f")
        below = Card(card.rank - 1, card.suit).label
        reason = f"{card.label} cannot go to its foundation before {below}"
        if self.cell_count == 0:
            raise IllegalMove(f"{reason}, and {self.title} has no cells")
        if None not in self.cells:
            full = "every other cell" if source.startswith("c") else "every cell"
            raise IllegalMove(f"{reason}, and {full} is full")
        move = move_of(source, CELL_NAMES[self.cells.index(None)])
        if not source.startswith("c"):
            return move
        try:  # a card in a cell goes to another where the game allows it (FreeCell)
            return self.check(move)
        except IllegalMove as exc:
            raise IllegalMove(f"{reason}, and {exc}") from None
