"""A game: the player's actions on a deal, each answering with the events that record it.

:class:`Game` plays a move (and the automatic moves to the foundations it sets off, when
autoplay is on), undoes and redoes, abandons and records a hint, and answers each with the
events to store (engine/events.py has their vocabulary).  What those events leave, and
their replay, is :class:`~engine.record.GameRecord`'s, its base class.
"""

from __future__ import annotations

from typing import Any

from engine.errors import NothingToRedo, NothingToUndo
from engine.events import (
    CARD_MOVED,
    EVENT_TYPES,
    GAME_ABANDONED,
    GAME_CREATED,
    GAME_WON,
    HINT_GIVEN,
    HINT_VERDICTS,
    MOVE_REDONE,
    MOVE_UNDONE,
    Event,
    hint_data,
)
from engine.moves import Move
from engine.record import GameRecord
from engine.status import ABANDONED, WON

__all__ = [
    "CARD_MOVED",
    "EVENT_TYPES",
    "GAME_ABANDONED",
    "GAME_CREATED",
    "GAME_WON",
    "HINT_GIVEN",
    "HINT_VERDICTS",
    "MOVE_REDONE",
    "MOVE_UNDONE",
    "Event",
    "Game",
]


class Game(GameRecord):
    """A game of one deal: its position, its line of play, undo/redo and status.

    Attributes: see :class:`~engine.record.GameRecord`; :meth:`new` starts a game and
    :meth:`~engine.record.GameRecord.replay` rebuilds one from its events.
    """

    __slots__ = ()

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, variant: str, deal: int, autoplay: bool = True) -> tuple[Game, list[Event]]:
        """A new game and its first events (GameCreated, automatic moves, GameWon?)."""
        game = cls(variant, deal, autoplay)
        events = [Event(GAME_CREATED, {"variant": game.variant, "deal": deal,
                                       "autoplay": autoplay, "state": game.position.to_dict()})]
        if autoplay:
            game._opening = game._autoplay(events)
        game._finish(events)
        game.version = len(events)
        return game, events

    # ------------------------------------------------------------------ automatic moves

    def _moved(self, move: Move, auto: bool) -> dict[str, Any]:
        """CardMoved's data for ``move``, just played."""
        return {
            "from": move.source,
            "to": move.target,
            "count": move.count,
            "card": self.position.moved_card().text,
            "auto": auto,
        }

    def _autoplay(self, events: list[Event]) -> int:
        """Play the automatic moves to the foundations (RULES.md's table), each as an
        event; returns how many."""
        pos = self.position
        n = 0
        while True:
            move = pos.auto_move()
            if move is None:
                return n
            pos.push(move)
            events.append(Event(CARD_MOVED, self._moved(move, True)))
            n += 1

    def _finish(self, events: list[Event]) -> None:
        """Win the game if its cards are all up."""
        if self.position.is_won:
            self._state = WON
            events.append(Event(GAME_WON, {}))

    # ------------------------------------------------------------------ actions

    def play(self, move: Move) -> list[Event]:
        """Play a player's move and the automatic moves it sets off (if autoplay is on).

        Raises InvalidMove/IllegalMove (nothing changes) or GameOver.
        """
        self._live()
        pos = self.position
        move = pos.check(move)
        pos.push(move)
        events = [Event(CARD_MOVED, self._moved(move, False))]
        turn = 1
        if self.autoplay:
            turn += self._autoplay(events)
        self._turns.append(turn)
        self._redo.clear()
        self._finish(events)
        self.version += len(events)
        return events

    def play_card(self, card: str, target: str) -> list[Event]:
        """Play the move :meth:`Position.move_for_card` finds (``target`` may be ``auto``)."""
        self._live()
        return self.play(self.position.move_for_card(card, target))

    def undo(self) -> list[Event]:
        """Take back the last player move still in effect and its automatic moves."""
        self._live()
        if not self._turns:
            raise NothingToUndo("there is no move to undo")
        events = [Event(MOVE_UNDONE, {"moves": self._take_back()})]
        self.undos += 1
        self.version += 1
        return events

    def redo(self) -> list[Event]:
        """Play again the last undone player move (while no other move came after it)."""
        self._live()
        if not self._redo:
            raise NothingToRedo("there is no undone move to redo")
        pos = self.position
        move = self._redo.pop()
        pos.push(move)
        data = self._moved(move, False)
        del data["auto"]
        events = [Event(MOVE_REDONE, data)]
        turn = 1
        if self.autoplay:
            turn += self._autoplay(events)
        self._turns.append(turn)
        self._finish(events)
        self.version += len(events)
        return events

    def abandon(self) -> list[Event]:
        """Give the game up."""
        self._live()
        self._state = ABANDONED
        self.version += 1
        return [Event(GAME_ABANDONED, {})]

    def give_hint(
        self,
        verdict: str,
        move: Move | None,
        moves_to_win: int | None,
        line: tuple[str, ...] | None = None,
    ) -> list[Event]:
        """Record a hint (the solver's verdict on the current position, its first move, and
        the player moves of the whole line when there is one); the game is assisted from
        then on unless the hint gave nothing away (engine.events.hint_assists)."""
        self._live()
        if move is not None:
            move = self.position.check(move)
        data = hint_data(verdict, move, moves_to_win)
        if line:
            data["line"] = list(line)
        self._hinted(data)
        self.version += 1
        return [Event(HINT_GIVEN, data)]
