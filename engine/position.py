"""A position of one of the four games: :class:`Position`, built in layers.

* engine/rules.py: the rule book (:class:`~engine.rules.RuleBook`), whose methods each game
  in engine/variants overrides, read by the position and by the solver alike;
* engine/state.py: the layout and the moves, push and undo;
* engine/checking.py: checking moves and listing the legal ones (a :class:`LegalMoves`,
  engine/moves.py);
* engine/page.py: the web page's helpers (where a card is and may go);
* here: the board text (Freecell Solver's format) and play.

Mutate a position only through :meth:`Position.play`, :meth:`Position.push` and
:meth:`Position.undo`: the list of legal moves is cached between changes.
"""

from __future__ import annotations

from typing import Final, TypeVar

from engine.cards import RANKS, Card
from engine.errors import InvalidMove
from engine.moves import LegalMoves, Move
from engine.page import PageHelpers

P = TypeVar("P", bound="Position")

FOUNDATION_ORDER: Final = "HCDS"  # the order Freecell Solver prints foundations in
_FOUNDATION_RANKS: Final = "0" + RANKS


class Position(PageHelpers):
    """The layout of a game in progress and the rules that govern it (a game's class
    overrides the rule book's methods: engine/variants)."""

    def __str__(self) -> str:
        return self.board_text()

    def play(self, move: Move) -> Move:
        """Check ``move``, apply it, record it; returns the concrete move."""
        move = self.check(move)
        self.push(move)
        return move

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


__all__ = ["FOUNDATION_ORDER", "LegalMoves", "Position"]
