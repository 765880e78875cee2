"""A game as its log leaves it, and the log replayed: :class:`GameRecord`.

The record holds the deal, the position, the line of play (the player moves in effect, each
with the automatic moves it set off, and the undone moves waiting to be redone), the hints
and the status; :meth:`GameRecord.replay` and :meth:`GameRecord.apply` rebuild it from the
stored events (engine/events.py).  The actions that write new events (play, undo, redo,
abandon, a hint, and the automatic moves) are :class:`engine.game.Game`'s, a subclass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self, cast

from engine.errors import (
    EngineError,
    GameOver,
    IllegalMove,
    InvalidMove,
    NothingToRedo,
    NothingToUndo,
)
from engine.events import (
    CARD_MOVED,
    GAME_ABANDONED,
    GAME_CREATED,
    GAME_WON,
    HINT_GIVEN,
    MOVE_REDONE,
    MOVE_UNDONE,
    Event,
    check_hint_verdict,
    hint_assists,
)
from engine.moves import SINGLE, Move, move_of
from engine.position import Position
from engine.status import ABANDONED, BLOCKED, OVER_STATUSES, PLAYING, WON
from engine.variants import find_variant


class GameRecord:
    """A game of one deal: its position, its line of play and status, rebuilt from events.

    Attributes: ``position``, ``variant`` (id), ``deal``, ``autoplay``, ``version`` (events
    applied so far, the seq of the last one), ``undos`` (undo events so far), ``hints``
    (hints so far), ``hint_line`` (the line of the last hint, HintGiven's ``line``),
    ``assisted`` (a hint gave something away: :func:`~engine.events.hint_assists`).
    """

    __slots__ = (
        "_assisted",
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

    def __init__(
        self, variant: str, deal: int, autoplay: bool = True,
        opening: Mapping[str, Any] | None = None,
    ) -> None:
        """The opening position of the deal (or `opening`, the layout a log says it was
        dealt), before any event; prefer ``Game.new``."""
        cls = find_variant(variant)
        if not isinstance(autoplay, bool):
            raise InvalidMove(f"autoplay must be true or false, not {autoplay!r}")
        self.position = cls.deal(deal) if opening is None else cls.from_dict(opening)
        self.variant = cls.name
        self.deal = deal
        self.autoplay = autoplay
        self.version = 0
        self.undos = 0
        self.hints = 0
        self.hint_line = None  # the line of the last hint (HintGiven's "line")
        self._assisted = False  # a hint gave something away (see ``assisted``)
        self._hint_turns: int | None = None  # player moves in effect at the last hint
        self._state: str = PLAYING  # or WON, ABANDONED (engine/status.py)
        self._opening = 0  # automatic moves before the first player move
        self._turns: list[int] = []  # per player move in effect: 1 + its automatic moves
        self._redo: list[Move] = []  # undone player moves, the next to redo last

    def copy(self) -> Self:
        """An independent copy."""
        new = object.__new__(type(self))
        new.position = self.position.copy()
        new.variant = self.variant
        new.deal = self.deal
        new.autoplay = self.autoplay
        new.version = self.version
        new.undos = self.undos
        new.hints = self.hints
        new.hint_line = self.hint_line
        new._assisted = self._assisted
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
        ``"abandoned"`` (engine/status.py, whose :func:`~engine.status.clock_stopped` says
        which of them stop the clock)."""
        if self._state != PLAYING:
            return self._state
        if self.position.outcome == BLOCKED:
            return BLOCKED
        return PLAYING

    @property
    def is_over(self) -> bool:
        """Won or abandoned (:data:`~engine.status.OVER_STATUSES`): nothing more can be
        played, undone or redone."""
        return self._state in OVER_STATUSES

    @property
    def moves(self) -> int:
        """Player moves in the current line of play."""
        return len(self._turns)

    @property
    def assisted(self) -> bool:
        """True once a hint gave something away, a move or a verdict
        (:func:`~engine.events.hint_assists`): one that found nothing (``unknown``, no
        move) counts in ``hints`` only."""
        return self._assisted

    @property
    def can_undo(self) -> bool:
        return self._state == PLAYING and bool(self._turns)

    @property
    def can_redo(self) -> bool:
        return self._state == PLAYING and bool(self._redo)

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.variant} #{self.deal} v{self.version} {self.status}, "
            f"{self.moves} moves>"
        )

    def moves_since_hint(self) -> list[Move] | None:
        """The player's moves in effect since the last hint, oldest first (automatic moves
        left out); None without a hint or when undos went back past it."""
        start = self._hint_turns
        if start is None:
            return None
        stack = self.position.move_stack
        at = len(stack)
        moves: list[Move] = []
        for turn in reversed(self._turns[start:]):
            at -= turn
            moves.append(stack[at])
        moves.reverse()
        return moves

    # ------------------------------------------------------------------ the line of play

    def _live(self) -> None:
        """GameOver unless the game can still change (it is not over)."""
        if self._state == WON:
            raise GameOver("the game is won: nothing more can be played")
        if self._state == ABANDONED:
            raise GameOver("the game was abandoned: nothing more can be played")

    def _take_back(self) -> list[dict[str, Any]]:
        """Undo the last player move in effect and its automatic moves (the redo stack
        keeps the player move); returns them as MoveUndone's ``moves``."""
        pos = self.position
        taken = []
        n = self._turns.pop()
        if self._hint_turns is not None and len(self._turns) < self._hint_turns:
            self._hint_turns = None  # back past the last hint: its position is left for good
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

    def _hinted(self, data: Mapping[str, Any]) -> None:
        """Count a hint given now, HintGiven's ``data`` (its line is the service's)."""
        self.hints += 1
        self._assisted = self._assisted or hint_assists(data.get("verdict"), data.get("move"))
        line = data.get("line")
        self.hint_line = tuple(line) if line else None
        self._hint_turns = len(self._turns)

    # ------------------------------------------------------------------ replay

    @classmethod
    def replay(cls, events: Iterable[Event | Mapping[str, Any]], check: bool = False) -> Self:
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
        game = cls(data["variant"], data["deal"], bool(data.get("autoplay", True)),
                   data.get("state"))  # fmt: skip
        game.version = 1
        if check:
            dealt = find_variant(game.variant).deal(game.deal)
            if game.position.to_dict() != dealt.to_dict():
                raise IllegalMove(
                    f"the log's opening layout is not {game.variant} deal {game.deal}'s"
                )
            for event in it:
                game.apply(event, True)
            return game
        # the trusted fast path: CardMoved events are applied inline (as apply does them)
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
            self._state = WON
        elif kind == GAME_ABANDONED:
            if check:
                self._live()
            self._state = ABANDONED
        elif kind == HINT_GIVEN:
            if check:
                self._live()
                check_hint_verdict(data.get("verdict"))
                hinted = data.get("move")
                if hinted is not None:
                    pos.check(move_of(hinted["from"], hinted["to"], hinted.get("count", 1)))
            self._hinted(data)
        elif kind == GAME_CREATED:
            raise InvalidMove("GameCreated can only be the first event of a game")
        else:
            raise EngineError(f"unknown event type {kind!r}")
        self.version += 1
