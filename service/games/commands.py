"""The commands on games: a new game, moves one at a time or in batches, undo, redo,
abandon and hints. Each says what it does to a copy of the game; service/games/write.py
judges it against the log and makes the write."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

from engine import EngineError, Event, Game, Move
from engine.status import PLAYING, WON
from service.base.backend import Backend
from service.base.errors import Forbidden, ServiceError
from service.base.requests import Idempotency
from service.boards.times import standing
from service.deals.numbers import checked_deal, random_deal
from service.games import answers, checks, commit, positions, times, write
from service.games.answers import NOT_YET, Answer
from service.games.checks import Action
from service.games.live_game import LiveGame
from service.players.accounts import Player
from service.races import service as races


async def create_game(
    backend: Backend,
    player: Player,
    variant: str,
    deal: int | None,
    autoplay: bool,
    idem: Idempotency | None = None,
    grade: str | None = None,
) -> Answer:
    if deal is None:
        deal = random_deal(variant, grade)
    checked_deal(variant, deal)
    game, events = Game.new(variant, deal, autoplay)
    created = events[0]
    events[0] = Event(created.type, {**created.data, "player_id": str(player.id)})
    live = LiveGame(game, player.id, NOT_YET, None)
    finish = times.finish(PLAYING, game.status, None)
    return await commit.commit(
        backend, uuid.uuid4(), live, events, 1, finish, idem, player.token_id
    )


def parse_move(position: Any, body: dict[str, Any]) -> Move:
    """The engine's move from a request: by source pile, or by card."""
    target = body["to"]
    if body.get("card") is not None:
        return position.move_for_card(body["card"], target)  # type: ignore[no-any-return]
    source, count = body["from"], body["count"]  # 1 unless said: service/games/schemas.py
    if target == "auto":
        return position.move_to_auto(source, count)  # type: ignore[no-any-return]
    return Move(source, target, count)


async def play(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    moves: dict[str, Any] | list[dict[str, Any]],
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    """One move (its body), or a batch (a list of bodies), all or none: each judged on the
    position the ones before it (and their automatic moves) left, and all their events
    appended by one write. A refusal in a batch names the move's place in it (`index`,
    0-based) in its problem body. A move of a batch may say when it was played
    (`played_ms`): its events keep it, and the write path checks it (games/times.py)."""

    def action(game: Game) -> list[Event]:
        if isinstance(moves, dict):
            return game.play(parse_move(game.position, moves))
        events: list[Event] = []
        for index, body in enumerate(moves):
            try:
                events += times.timed(
                    game.play(parse_move(game.position, body)), body.get("played_ms")
                )
            except EngineError as exc:
                exc.index = index  # type: ignore[attr-defined]  # read by problems.py
                raise
        return events

    return await with_standing(
        backend, await write.write(backend, game_id, player, expected_version, idem, action)
    )


async def with_standing(backend: Backend, answer: Answer) -> Answer:
    """A write that won the game answers with its standing on the deal's default board,
    as the game's view does (queries.get_game): one read more, after a win only."""
    game = answer.body.get("game")
    if answer.status != 201 or game is None or game.get("status") != WON:
        return answer
    place = await standing(
        backend, game["variant"], game["deal"], uuid.UUID(str(game["player_id"])),
        uuid.UUID(str(game["id"])),
    )
    game = {**game, "standing": place}
    return Answer(answer.status, {**answer.body, "game": game}, answer.replayed)


# the commands that take nothing but the game, by the name of their route
SIMPLE: Final[dict[str, Callable[[Game], list[Event]]]] = {
    "undo": Game.undo,
    "redo": Game.redo,
    "abandon": Game.abandon,
}


async def simple(
    backend: Backend,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None,
    command: str,
) -> Answer:
    """Undo, redo or abandon (SIMPLE), written as any move is."""
    answer = await write.write(backend, game_id, player, expected_version, idem, SIMPLE[command])
    return await with_standing(backend, answer)


Judge = Callable[[Game], Awaitable[dict[str, Any]]]
"""The solver's hint on a game's position: {"verdict", "move", "moves_to_win", "solver",
"line"}: `line`, the player moves of the winning line, goes on the record for the next
hint and is shown to nobody."""


async def give_hint(
    backend: Backend,
    judge: Judge,
    game_id: uuid.UUID,
    player: Player,
    expected_version: int | None,
    idem: Idempotency | None = None,
) -> Answer:
    """A hint on the game's current position, recorded as a HintGiven event.

    The position is the log's (read once), the search runs outside the game's lock, and
    the hint is recorded only on the version it was found for. When a move landed
    meanwhile, the hint is searched again on the position the write judges, inside the
    write (games/write.py: under the game's locks after conflicts), so no move of
    another instance makes it a 409; `judge` keeps to one budget across its searches. A
    retry (same Idempotency-Key) refused before the write gets its first answer, as the
    write path gives it (answers.answered_before)."""

    def found(game: Game, hint: dict[str, Any]) -> tuple[Action, dict[str, Any]]:
        """The write's action and the answer's extra fields of the solver's `hint`."""
        move = hint.get("move")
        hinted = None if move is None else Move(move["from"], move["to"], move["count"])
        extra = {
            "verdict": hint["verdict"],
            "move": move,
            "moves_to_win": hint.get("moves_to_win"),
            "solver": hint.get("solver"),
        }
        line = hint.get("line")

        def action(g: Game) -> list[Event]:
            return g.give_hint(extra["verdict"], hinted, extra["moves_to_win"], line)

        return action, extra

    async def search(game: Game) -> tuple[Action, dict[str, Any]]:
        checks.check_version(game, expected_version)
        checks.check_live(game)
        return found(game, await judge(game.copy()))

    try:
        live = await positions.load(backend, game_id)
        checks.check_owner(live, player)
        await refuse_hints_in_races(backend, game_id, live)
        game = (await positions.current(backend, game_id)).game
        first = game.version, await search(game)
    except (EngineError, ServiceError) as exc:
        if (answer := await answers.answered_before(backend, player, idem, exc)) is not None:
            return answer
        raise

    async def searched(game: Game) -> tuple[Action, dict[str, Any]]:
        """The first search's hint on its version (a game's version names its position),
        else a search on this one."""
        return first[1] if game.version == first[0] else await search(game)

    return await write.write(backend, game_id, player, expected_version, idem, None,
                             search=searched)


def refuse_in_race_games(live: LiveGame) -> None:
    """A race's games get no hint, even once over: every racer plays the same deal."""
    if live.race_id is not None:
        raise Forbidden(
            f"this game is played in race {live.race_id}: hints are refused in a race's games"
        )


async def refuse_hints_in_races(
    backend: Backend, game_id: uuid.UUID, live: LiveGame, *, read_by_anyone: bool = False
) -> None:
    """A race's games get no hint (API.md), nor a hint read off one of them once over:
    every racer plays the same deal. Nor does any game of a player who races on its deal
    while the race runs: a game of their own with the race's moves played again is no
    way round. One query, on the hints' path only."""
    refuse_in_race_games(live)
    await races.refuse_while_its_player_races(
        backend, game_id, "hints", read_by_anyone=read_by_anyone
    )
