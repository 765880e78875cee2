"""The errors the engine raises.

Every error is a :class:`ValueError` through :class:`EngineError`, so a caller can catch the
whole family at once.  The service maps them to HTTP answers:

* :class:`InvalidMove` - the request is malformed (no such pile in this game, a count below
  one, text that is no card or move): a client bug. A pile moved onto itself is well
  formed, and illegal.
* :class:`IllegalMove` - well formed but against the rules; the message names the rule in
  words a player understands.
* :class:`InvalidDeal` - a deal number outside 1..MAX_DEAL.
* :class:`GameOver`, :class:`NothingToUndo`, :class:`NothingToRedo` - the game's state does
  not allow the request (the service answers 409).
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises."""


class InvalidMove(EngineError):
    """A malformed move, card, pile or variant name."""


class UnknownVariant(InvalidMove):
    """No game of that name."""


class IllegalMove(EngineError):
    """A well-formed move that the rules of the game forbid."""


class InvalidDeal(EngineError):
    """A deal number outside 1..MAX_DEAL."""


class GameOver(EngineError):
    """The game is won or abandoned: nothing more can be played, undone or redone."""


class NothingToUndo(EngineError):
    """No player move is left to take back."""


class NothingToRedo(EngineError):
    """No undone move is waiting to be played again."""
