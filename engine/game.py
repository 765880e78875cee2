"""A game: a deal, the line of play with undo and redo, and the events that record it.

Events are plain data (a type and a JSON-able dict) that the service stores verbatim;
:meth:`Game.replay` rebuilds the game from them.  Event types and their ``data``:

``GameCreated``   ``{"variant": "freecell", "deal": 617, "autoplay": true}``
``CardMoved``     ``{"from": "t3", "to": "c1", "count": 1, "card": "7H", "auto": false}``
                  ``card`` is the deepest card moved (the one the player picked up);
                  ``auto`` is true for an automatic move to the foundations.
``MoveUndone``    ``{"moves": [{"from", "to", "count", "card", "auto"}, ...]}`` the moves
                  taken back, last played first: the player move comes last, after the
                  automatic moves that followed it.
``MoveRedone``    ``{"from", "to", "count", "card"}`` the player move played again; its
                  automatic moves follow as ``CardMoved`` events with ``auto`` true.
``GameWon``       ``{}``
``GameAbandoned`` ``{}``
``HintGiven``     ``{"verdict": "winnable", "move": {"from", "to", "count"} | null,
                  "moves_to_win": 87 | null, "line": ["t3-t5", ...]}`` a hint the player
                  asked for; it changes nothing on the board, and makes the game
                  assisted. ``line`` (the player moves of the winning line, kept so that
                  the next hint along it is a lookup) is the service's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from engine.errors import EngineError, GameOver, InvalidMove, NothingToRedo, NothingToUndo
from engine.moves import SINGLE, Move, move_of
from engine.position import Position
from engine.variants import find_variant

GAME_CREATED: Final = "GameCreated"
CARD_MOVED: Final = "CardMoved"
MOVE_UNDONE: Final = "MoveUndone"
MOVE_REDONE: Final = "MoveRedone"
GAME_WON: Final = "GameWon"
GAME_ABANDONED: Final = "GameAbandoned"
HINT_GIVEN: Final = "HintGiven"
EVENT_TYPES: Final = (
    GAME_CREATED,
    CARD_MOVED,
    MOVE_UNDONE,
    MOVE_REDONE,
    GAME_WON,
    GAME_ABANDONED,
    HINT_GIVEN,
)


HINT_VERDICTS: Final = ("winnable", "unwinnable", "unknown")


def _hint_data(verdict: str, move: Move | None, moves_to_win: int | None) -> dict[str, Any]:
    if verdict not in HINT_VERDICTS:
        raise InvalidMove(f"a hint's verdict is one of {', '.join(HINT_VERDICTS)}")
    return {
        "verdict": verdict,
        "move": None if move is None else
        {"from": move.source, "to": move.target, "count": move.count},
        "moves_to_win": moves_to_win,
    }


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a game's log: ``type`` (see the module docstring) and JSON-able ``data``."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> Event:
        """An event from ``{"type": ..., "data": {...}}`` (other keys, as ``seq``, ignored)."""
        return cls(item["type"], dict(item.get("data") or {}))


class Game:
    """A game of one deal: its position, its line of play, undo/redo and status.

    Attributes: ``position``, ``variant`` (id), ``deal``, ``autoplay``, ``version`` (events
    applied so far, the seq of the last one), ``undos`` (undo events so far).
    """

    __slots__ = (
        "_hint_turns",
        "_opening",
        "_redo",
        "_state",
        "_turns",
        "autoplay",
        "deal",
        "hint_line",
        "hints",
        "position",
        "undos",
        "variant",
        "version",
    )

    position: Position
    variant: str
    deal: int
    autoplay: bool
    version: int
    undos: int
    hints: int
    hint_line: tuple[str, ...] | None

    def __init__(self, variant: str, deal: int, autoplay: bool = True) -> None:
        """The opening position of the deal, before any event; prefer :meth:`new`."""
        cls = find_variant(variant)
        if not isinstance(autoplay, bool):
            raise InvalidMove(f"autoplay must be true or false, not {autoplay!r}")
        self.position = cls.deal(deal)
        self.variant = cls.name
        self.deal = deal
        self.autoplay = autoplay
        self.version = 0
        self.undos = 0
        self.hints = 0
        self.hint_line = None  # the line of the last hint (HintGiven's "line")
        self._hint_turns: int | None = None  # player moves in effect at the last hint
        self._state = "playing"  # or "won", "abandoned"
        self._opening = 0  # automatic moves before the first player move
        self._turns: list[int] = []  # per player move in effect: 1 + its automatic moves
        self._redo: list[Move] = []  # undone player moves, the next to redo last

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, variant: str, deal: int, autoplay: bool = True) -> tuple[Game, list[Event]]:
        """A new game and its first events (GameCreated, automatic moves, GameWon?)."""
        game = cls(variant, deal, autoplay)
        events = [
            Event(GAME_CREATED, {"variant": game.variant, "deal": deal, "autoplay": autoplay})
        ]
        if autoplay:
            game._opening = game._autoplay(events)
        game._finish(events)
        game.version = len(events)
        return game, events

    @classmethod
    def replay(cls, events: Iterable[Event | Mapping[str, Any]], check: bool = False) -> Game:
        """The game the events (from GameCreated on) describe.

        With ``check`` every move is checked against the rules (InvalidMove/IllegalMove on
        a bad log); without it, stored events are trusted and replay is fast.
        """
        it = iter(events)
        first = next(it, None)
        if first is None:
            raise InvalidMove("no events to replay")
        if not isinstance(first, Event):
            first = Event.from_dict(first)
        if first.type != GAME_CREATED:
            raise InvalidMove(f"a game's log starts with GameCreated, not {first.type}")
        data = first.data
        game = cls(data["variant"], data["deal"], bool(data.get("autoplay", True)))
        game.version = 1
        if check:
            for event in it:
                game.apply(event, True)
            return game
        # the trusted fast path: CardMoved events are applied inline
        push = game.position.push
        turns = game._turns
        redo = game._redo
        apply = game.apply
        single = SINGLE
        for event in it:
            if type(event) is Event:
                kind = event.type
                data = event.data
            else:
                stored = cast(Mapping[str, Any], event)
                kind = stored["type"]
                data = stored.get("data") or {}
            if kind == CARD_MOVED:
                count = data.get("count", 1)
                if count == 1:
                    push(single[data["from"]][data["to"]])
                else:
                    push(move_of(data["from"], data["to"], count))
                if not data.get("auto"):
                    turns.append(1)
                    if redo:
                        redo.clear()
                elif turns:
                    turns[-1] += 1
                else:
                    game._opening += 1
                game.version += 1
            else:
                apply(Event(kind, data))
        return game

    def copy(self) -> Game:
        """An independent copy."""
        new = object.__new__(Game)
        new.position = self.position.copy()
        new.variant = self.variant
        new.deal = self.deal
        new.autoplay = self.autoplay
        new.version = self.version
        new.undos = self.undos
        new.hints = self.hints
        new.hint_line = self.hint_line
        new._hint_turns = self._hint_turns
        new._state = self._state
        new._opening = self._opening
        new._turns = self._turns[:]
        new._redo = self._redo[:]
        return new

    __copy__ = copy

    # ------------------------------------------------------------------ state

    @property
    def status(self) -> str:
        """``"playing"``, ``"won"``, ``"blocked"`` (no legal move; undo may help) or
        ``"abandoned"``."""
        if self._state != "playing":
            return self._state
        if self.position.outcome == "blocked":
            return "blocked"
        return "playing"

    @property
    def is_over(self) -> bool:
        """Won or abandoned: nothing more can be played, undone or redone."""
        return self._state != "playing"

    @property
    def moves(self) -> int:
        """Player moves in the current line of play."""
        return len(self._turns)

    @property
    def assisted(self) -> bool:
        """True once a hint was given."""
        return self.hints > 0

    @property
    def can_undo(self) -> bool:
        return self._state == "playing" and bool(self._turns)

    @property
    def can_redo(self) -> bool:
        return self._state == "playing" and bool(self._redo)

    def __repr__(self) -> str:
        return (
            f"<Game {self.variant} #{self.deal} v{self.version} {self.status}, {self.moves} moves>"
        )

    # ------------------------------------------------------------------ actions

    def _live(self) -> None:
        if self._state == "won":
            raise GameOver("the game is won: nothing more can be played")
        if self._state == "abandoned":
            raise GameOver("the game was abandoned: nothing more can be played")

    def _moved(self, move: Move, auto: bool) -> dict[str, Any]:
        return {
            "from": move.source,
            "to": move.target,
            "count": move.count,
            "card": self.position.moved_card().text,
            "auto": auto,
        }

    def _autoplay(self, events: list[Event]) -> int:
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
        if self.position.is_won:
            self._state = "won"
            events.append(Event(GAME_WON, {}))

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

    def _take_back(self) -> list[dict[str, Any]]:
        pos = self.position
        taken = []
        n = self._turns.pop()
        for i in range(n):
            card = pos.moved_card()
            move = pos.undo()
            taken.append(
                {
                    "from": move.source,
                    "to": move.target,
                    "count": move.count,
                    "card": card.text,
                    "auto": i < n - 1,
                }
            )
            if i == n - 1:
                self._redo.append(move)
        return taken

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
        self._state = "abandoned"
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
        the player moves of the whole line when there is one)."""
        self._live()
        if move is not None:
            move = self.position.check(move)
        data = _hint_data(verdict, move, moves_to_win)
        if line:
            data["line"] = list(line)
        self.hints += 1
        self.hint_line = tuple(line) if line else None
        self._hint_turns = len(self._turns)
        self.version += 1
        return [Event(HINT_GIVEN, data)]

    # ------------------------------------------------------------------ replay

    def moves_since_hint(self) -> list[Move] | None:
        """The player's moves in effect since the last hint, oldest first (automatic moves
        left out); None without a hint or when undos went back past it."""
        start = self._hint_turns
        if start is None or len(self._turns) < start:
            return None
        stack = self.position.move_stack
        at = len(stack)
        moves: list[Move] = []
        for turn in reversed(self._turns[start:]):
            at -= turn
            moves.append(stack[at])
        moves.reverse()
        return moves

    def apply(self, event: Event | Mapping[str, Any], check: bool = False) -> None:
        """Replay one stored event (the next one of this game's log).

        Trusts the event unless ``check`` is true, then checks every move against the rules.
        """
        if not isinstance(event, Event):
            event = Event.from_dict(event)
        kind = event.type
        data = event.data
        pos = self.position
        if kind == CARD_MOVED:
            move = move_of(data["from"], data["to"], data.get("count", 1))
            if check:
                self._live()
                move = pos.check(move)
                if data.get("auto"):
                    card = pos.card_at(move.source)
                    if move.target != "f" or card is None or not pos.is_auto_safe(card):
                        raise InvalidMove(f"{move} is no automatic move")
            pos.push(move)
            if not data.get("auto"):
                self._turns.append(1)
                self._redo.clear()
            elif self._turns:
                self._turns[-1] += 1
            else:
                self._opening += 1
        elif kind == MOVE_UNDONE:
            if check:
                self._live()
                if not self._turns:
                    raise NothingToUndo("there is no move to undo")
            self._take_back()
            self.undos += 1
        elif kind == MOVE_REDONE:
            if check:
                self._live()
                if not self._redo:
                    raise NothingToRedo("there is no undone move to redo")
                move = pos.check(move_of(data["from"], data["to"], data.get("count", 1)))
                if move != self._redo[-1]:
                    raise InvalidMove(f"{move} is not the move to redo ({self._redo[-1]})")
            pos.push(self._redo.pop())
            self._turns.append(1)
        elif kind == GAME_WON:
            if check and not pos.is_won:
                raise InvalidMove("GameWon before all 52 cards are on the foundations")
            self._state = "won"
        elif kind == GAME_ABANDONED:
            if check:
                self._live()
            self._state = "abandoned"
        elif kind == HINT_GIVEN:
            if check:
                self._live()
                if data.get("verdict") not in HINT_VERDICTS:
                    raise InvalidMove(f"a hint's verdict is one of {', '.join(HINT_VERDICTS)}")
                hinted = data.get("move")
                if hinted is not None:
                    pos.check(move_of(hinted["from"], hinted["to"], hinted.get("count", 1)))
            self.hints += 1
            line = data.get("line")
            self.hint_line = tuple(line) if line else None
            self._hint_turns = len(self._turns)
        elif kind == GAME_CREATED:
            raise InvalidMove("GameCreated can only be the first event of a game")
        else:
            raise EngineError(f"unknown event type {kind!r}")
        self.version += 1
