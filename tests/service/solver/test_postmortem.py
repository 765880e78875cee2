"""Where a finished game was lost (service/solver/postmortem.py), with verdicts scripted
by position: the binary search over its log, and what it says when some stayed unknown."""

from __future__ import annotations

from typing import Any

import orjson

from engine import Game, Move
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE
from service.solver.cache import Verdict
from service.solver.pool import boards_along
from service.solver.postmortem import analysis


class Scripted:
    """A solver whose verdicts are set by position (board text): unknown for the rest."""

    budget = 1.0

    def __init__(self, verdicts: dict[str, str]) -> None:
        self.verdicts = verdicts

    async def offload(self, fn: Any, *args: Any) -> Any:
        return fn(*args)

    def peek(self, _position: Any) -> None:
        return None

    async def verdict(self, position: Any, *_args: Any, **_kw: Any) -> Verdict:
        return Verdict(self.verdicts.get(position.board_text(), UNKNOWN), None, "none")


def abandoned_log(moves: list[str]) -> str:
    """A FreeCell game of deal 617 (no automatic moves): `moves` ("undo" and "redo" among
    them), then abandoned."""
    game, created = Game.new("freecell", 617, autoplay=False)
    log = [[i + 1, e.type, e.data] for i, e in enumerate(created)]
    for text in moves:
        events = getattr(game, text)() if text in ("undo", "redo") else game.play(Move.parse(text))
        for event in events:
            log.append([len(log) + 1, event.type, event.data])
    log.append([len(log) + 1, "GameAbandoned", {}])
    return orjson.dumps(log).decode()


async def test_a_game_lost_where_some_verdicts_stayed_unknown_says_when_at_the_latest() -> None:
    """Winnable after seq 1, unknown after 3 and 4, unwinnable from seq 5 on: the spot is
    somewhere in 2..5; `lost_at` says 5, the latest it can be, never null (null says the
    game never became unwinnable)."""
    log = abandoned_log(["t1-c", "t2-c", "t3-c", "t4-c"])
    _variant, _deal, _status, _version, seqs, boards, _undos = boards_along(log)
    assert seqs == [1, 2, 3, 4, 5, 6]
    script = [WINNABLE, WINNABLE, UNKNOWN, UNKNOWN, UNWINNABLE, UNWINNABLE]
    body = await analysis(Scripted(dict(zip(boards, script, strict=True))), log, 10.0)  # type: ignore[arg-type]
    assert body["complete"] is False
    assert (body["lost_at"], body["last_winnable"], body["first_unwinnable"]) == (5, 1, 5)
    # all known: exact
    script = [WINNABLE, WINNABLE, WINNABLE, UNWINNABLE, UNWINNABLE, UNWINNABLE]
    body = await analysis(Scripted(dict(zip(boards, script, strict=True))), log, 10.0)  # type: ignore[arg-type]
    assert body["complete"] is True and body["lost_at"] == 4
    assert "first_unwinnable" not in body


async def test_a_loss_undone_and_made_again_is_dated_by_the_last() -> None:
    """A lost position undone is winnable again (the one before it): the game was lost at
    the redo that made the loss again, not at the move the undo took back."""
    log = abandoned_log(["t1-c", "t2-c", "undo", "redo"])
    _variant, _deal, _status, _version, seqs, boards, undos = boards_along(log)
    assert seqs == [1, 2, 3, 4, 5, 6] and undos == [3]
    assert boards[3] == boards[1] and boards[4] == boards[2]  # (the undo, the redo)
    verdicts = {boards[0]: WINNABLE, boards[1]: WINNABLE, boards[2]: UNWINNABLE}
    body = await analysis(Scripted(verdicts), log, 10.0)  # type: ignore[arg-type]
    assert body["complete"] is True and body["lost_at"] == 5
    # lost before the undo's stretch began: the undo took back a move of a lost game
    log = abandoned_log(["t1-c", "t2-c", "t3-c", "undo", "t4-c"])
    _variant, _deal, _status, _version, seqs, boards, undos = boards_along(log)
    assert undos == [4] and boards[4] == boards[2]
    verdicts = {boards[0]: WINNABLE, boards[1]: WINNABLE}
    verdicts.update({b: UNWINNABLE for b in boards[2:]})
    body = await analysis(Scripted(verdicts), log, 10.0)  # type: ignore[arg-type]
    assert body["complete"] is True and body["lost_at"] == 3
