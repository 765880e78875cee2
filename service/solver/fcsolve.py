"""Freecell Solver (libfreecell-solver) through ctypes: the fast path for FreeCell, Baker's
Game and Beleaguered Castle where the library is installed.

Nothing here is needed: without the library :func:`available` is False and the service uses
the engine's own solver.  The library is driven with an atomic-moves preset (single-card
moves: ``toons-for-twenty-somethings`` by default, ``crooked-nose`` for the tables): its
search then covers every legal move, so "not solvable" means what it says.  Every line it
returns is converted to engine moves and replayed through the rules before it is believed; a
line the rules refuse counts as no answer.

Baker's Dozen needs 13 columns, more than the library is usually built for (Debian's takes
10): :func:`use_library` points this module at another build of it (the tables' script does,
for its ``--library`` option), and :func:`plays` tells whether the library loaded takes a
game.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from engine import FreeCell, Move, Position
from engine.moves import CELL_NAMES, COLUMN_NAMES
from engine.solver import UNKNOWN, UNWINNABLE, WINNABLE, Solution

GAMES: Final = {
    "freecell": "freecell",
    "bakers_game": "bakers_game",
    "beleaguered_castle": "beleaguered_castle",
}
# games only a library built with more stacks plays (Baker's Dozen: 13 columns).  The
# library's bakers_dozen is our rule book's: no cells, 13 columns, a card on any card one rank
# higher, one card per move, an empty column filled by nothing.
WIDE_GAMES: Final = {"bakers_dozen": "bakers_dozen"}
# atomic-moves presets: crooked-nose (the reference the tables and the bench use) and
# toons-for-twenty-somethings, a little faster on most deals (the service's)
REFERENCE_PRESET: Final = "crooked-nose"
DEFAULT_PRESET: Final = "toons-for-twenty-somethings"
ATOMIC: Final = frozenset({REFERENCE_PRESET, DEFAULT_PRESET})
LIBRARY_NAMES: Final = ("libfreecell-solver.so.0", "libfreecell-solver.so")

# fc_solve_solve_process_ret_t (fcs_enums.h)
_SOLVED: Final = 0
_NOT_SOLVEABLE: Final = 1
_SUSPENDED: Final = 5
# fcs_move_t's type byte (fcs_move.h)
_STACK_TO_STACK: Final = 0
_STACK_TO_CELL: Final = 1
_CELL_TO_STACK: Final = 2
_CELL_TO_CELL: Final = 3
_STACK_TO_FOUNDATION: Final = 4
_CELL_TO_FOUNDATION: Final = 5
_NOT_A_MOVE: Final = (12, 13, 14)  # canonize, separator, null

_ITERATIONS_PER_SLICE: Final = 20_000  # between two looks at the clock (a few ms)


class _FcsMove(ctypes.Structure):
    _fields_ = [("c", ctypes.c_uint8 * 4)]


_lib: ctypes.CDLL | None = None
_lib_checked = False
_lock = threading.Lock()
_TRIM = getattr(ctypes.CDLL(None), "malloc_trim", None)  # glibc's (elsewhere none)
_library_path: str | None = None  # another build of the library (use_library)
_plays: dict[str, bool] = {}


def use_library(path: str | None) -> None:
    """Load the library from the file ``path`` instead of the system's (None: the system's
    again).  For scripts: the service always uses the system's.  A library that is not
    installed finds its presets (``-l``) through the FREECELL_SOLVER_PRESETRC variable."""
    global _library_path, _lib, _lib_checked
    with _lock:
        _library_path = path
        _lib = None
        _lib_checked = False
        _instances.clear()
        _plays.clear()


def _load() -> ctypes.CDLL | None:
    global _lib, _lib_checked
    with _lock:
        if _lib_checked:
            return _lib
        _lib_checked = True
        if _library_path is not None:
            names = [_library_path]
        else:
            names = list(LIBRARY_NAMES)
            found = ctypes.util.find_library("freecell-solver")
            if found:
                names.append(found)
        for name in names:
            try:
                lib = ctypes.CDLL(name)
            except OSError:
                continue
            _declare(lib)
            _lib = lib
            break
        return _lib


def _declare(lib: ctypes.CDLL) -> None:
    vp = ctypes.c_void_p
    lib.freecell_solver_user_alloc.restype = vp
    lib.freecell_solver_user_alloc.argtypes = []
    lib.freecell_solver_user_free.argtypes = [vp]
    lib.freecell_solver_user_recycle.argtypes = [vp]
    lib.freecell_solver_user_get_lib_version.restype = ctypes.c_char_p
    lib.freecell_solver_user_get_lib_version.argtypes = [vp]
    lib.freecell_solver_user_cmd_line_parse_args_with_file_nesting_count.restype = ctypes.c_int
    lib.freecell_solver_user_limit_iterations_long.argtypes = [vp, ctypes.c_long]
    lib.freecell_solver_user_solve_board.argtypes = [vp, ctypes.c_char_p]
    lib.freecell_solver_user_solve_board.restype = ctypes.c_int
    lib.freecell_solver_user_resume_solution.argtypes = [vp]
    lib.freecell_solver_user_resume_solution.restype = ctypes.c_int
    lib.freecell_solver_user_get_num_times_long.argtypes = [vp]
    lib.freecell_solver_user_get_num_times_long.restype = ctypes.c_long
    lib.freecell_solver_user_get_next_move.argtypes = [vp, ctypes.POINTER(_FcsMove)]
    lib.freecell_solver_user_get_next_move.restype = ctypes.c_int


def available() -> bool:
    """Whether the library loads on this machine."""
    return _load() is not None


def plays(variant: str) -> bool:
    """Whether the library loaded plays ``variant`` (a game of :data:`WIDE_GAMES` only when
    it was built with enough stacks)."""
    lib = _load()
    if lib is None:
        return False
    if variant in GAMES:
        return True
    game = WIDE_GAMES.get(variant)
    if game is None:
        return False
    known = _plays.get(game)
    if known is None:
        with _lock:
            try:
                _instance(lib, game, "")
                known = True
            except ValueError:  # "exceeds the maximal number of stacks"
                known = False
        _plays[game] = known
    return known


def version() -> str | None:
    lib = _load()
    if lib is None:
        return None
    raw: bytes = lib.freecell_solver_user_get_lib_version(None)
    return raw.decode()


@dataclass(frozen=True, slots=True)
class _Instance:
    handle: int
    game: str
    preset: str


_instances: dict[tuple[str, str, bool], _Instance] = {}


def _instance(lib: ctypes.CDLL, game: str, preset: str, optimize: bool = False) -> _Instance:
    """One configured solver per (game, preset, optimize), reused (recycled) between boards."""
    found = _instances.get((game, preset, optimize))
    if found is not None:
        lib.freecell_solver_user_recycle(found.handle)
        return found
    handle = lib.freecell_solver_user_alloc()
    if not handle:
        raise MemoryError("freecell_solver_user_alloc failed")
    args = [b"-g", game.encode()]
    if preset:  # (none: the library's default configuration)
        args += [b"-l", preset.encode()]
    if optimize:
        args.append(b"-opt")
    argv = (ctypes.c_char_p * len(args))(*args)
    last = ctypes.c_int(0)
    error = ctypes.c_char_p()
    known = (ctypes.c_char_p * 1)(None)
    opened_dir = ctypes.create_string_buffer(32001)
    ret = lib.freecell_solver_user_cmd_line_parse_args_with_file_nesting_count(
        ctypes.c_void_p(handle), len(args), argv, 0, known, None, None,
        ctypes.byref(error), ctypes.byref(last), -1, opened_dir,
    )  # fmt: skip
    if ret != 0:
        lib.freecell_solver_user_free(handle)
        raise ValueError(f"Freecell Solver refused {args!r}: {error.value!r}")
    made = _Instance(handle, game, preset)
    _instances[(game, preset, optimize)] = made
    return made


def give_back() -> None:
    """Free every configured solver and hand the memory freed back to the system (glibc's
    malloc_trim). A solver keeps the states of its largest search, recycled or not, so a
    worker that kept them held the high-water mark of all its searches (0.7 to 1.5 GB
    after an hour of play); configuring one again costs well under a millisecond."""
    lib = _load()
    if lib is None:
        return
    with _lock:
        for made in _instances.values():
            lib.freecell_solver_user_free(made.handle)
        _instances.clear()
    if _TRIM is not None:
        _TRIM(0)


def _engine_move(raw: tuple[int, ...]) -> Move | None:
    kind, src, dst, count = raw
    if kind == _STACK_TO_STACK:
        return Move(COLUMN_NAMES[src], COLUMN_NAMES[dst], max(1, count))
    if kind == _STACK_TO_CELL:
        return Move(COLUMN_NAMES[src], CELL_NAMES[dst])
    if kind == _CELL_TO_STACK:
        return Move(CELL_NAMES[src], COLUMN_NAMES[dst])
    if kind == _CELL_TO_CELL:
        return Move(CELL_NAMES[src], CELL_NAMES[dst])
    if kind == _STACK_TO_FOUNDATION:
        return Move(COLUMN_NAMES[src], "f")
    if kind == _CELL_TO_FOUNDATION:
        return Move(CELL_NAMES[src], "f")
    if kind in _NOT_A_MOVE:
        return None
    raise ValueError(f"unexpected Freecell Solver move type {kind}")


def solve(
    position: Position,
    *,
    max_seconds: float | None = None,
    max_iterations: int | None = None,
    preset: str = DEFAULT_PRESET,
    optimize: bool = False,
    stop: Callable[[], bool] | None = None,
) -> Solution | None:
    """Freecell Solver's verdict on ``position``; None where it cannot help (library
    missing, a game it does not play, a line the rules refuse).

    ``optimize`` asks the library to shorten its line (``-opt``).  Only the atomic-moves
    presets (:data:`ATOMIC`) prove a deal unwinnable; another preset's "not solvable" is
    answered ``unknown``.  ``states`` in the answer is the library's iteration count.
    ``stop``, asked between two slices, ends the search early when it says so.
    """
    lib = _load()
    game = GAMES.get(position.name)
    if game is None and position.name in WIDE_GAMES and plays(position.name):
        game = WIDE_GAMES[position.name]
    if lib is None or game is None:
        return None
    started = time.perf_counter()
    deadline = None if max_seconds is None else started + max_seconds
    cap = max_iterations if max_iterations is not None else 1 << 40
    with _lock:
        inst = _instance(lib, game, preset, optimize)
        handle = inst.handle
        limit = min(cap, _ITERATIONS_PER_SLICE)
        lib.freecell_solver_user_limit_iterations_long(handle, limit)
        ret = lib.freecell_solver_user_solve_board(handle, position.board_text().encode())
        while ret == _SUSPENDED and limit < cap:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if stop is not None and stop():
                break
            limit = min(cap, limit + _ITERATIONS_PER_SLICE)
            lib.freecell_solver_user_limit_iterations_long(handle, limit)
            ret = lib.freecell_solver_user_resume_solution(handle)
        iterations = int(lib.freecell_solver_user_get_num_times_long(handle))
        raw_moves: list[tuple[int, ...]] = []
        if ret == _SOLVED:
            move = _FcsMove()
            while lib.freecell_solver_user_get_next_move(handle, ctypes.byref(move)) == 0:
                raw_moves.append(tuple(move.c))
    seconds = time.perf_counter() - started
    if ret == _NOT_SOLVEABLE:
        verdict = UNWINNABLE if preset in ATOMIC else UNKNOWN
        return Solution(verdict, None, iterations, seconds)
    if ret != _SOLVED:
        return Solution(UNKNOWN, None, iterations, seconds)
    line = _checked_line(position, raw_moves)
    if line is None:
        return None
    return Solution(WINNABLE, line, iterations, seconds)


def _checked_line(position: Position, raw_moves: list[tuple[int, ...]]) -> tuple[Move, ...] | None:
    """The library's line as engine moves, each checked by the rules; None if any is refused
    or the line does not win."""
    pos = position.copy(stack=False)
    line: list[Move] = []
    try:
        for raw in raw_moves:
            move = _engine_move(raw)
            if move is None:
                continue
            steps = [move] if move.count == 1 or pos.moves_runs else single_steps(pos, move)
            for step in steps:
                line.append(pos.play(step))
    except (ValueError, IndexError):
        return None
    return tuple(line) if pos.is_won else None


def single_steps(position: Position, move: Move) -> list[Move]:
    """The single-card moves a move of a run between two columns stands for, through the
    empty cells and the empty columns (the other than the target), as a player would make
    them: 2n - 1 moves for n cards when the cells suffice.  The moves are not checked here."""
    free = [CELL_NAMES[i] for i, held in enumerate(position.cells) if held is None]
    empties = [
        COLUMN_NAMES[i]
        for i, column in enumerate(position.tableau)
        if not column and COLUMN_NAMES[i] not in (move.source, move.target)
    ]

    def run(source: str, target: str, count: int, spare: list[str]) -> list[Move]:
        if count <= len(free) + 1 or not spare:
            used = free[: count - 1]
            return [
                *(Move(source, cell) for cell in used),
                Move(source, target),
                *(Move(cell, target) for cell in reversed(used)),
            ]
        aside, rest = spare[0], spare[1:]
        # as many as single moves can take to `aside` through the cells and the other
        # empty columns: FreeCell's rule for a run is just that
        part = min(count - 1, FreeCell.max_run(len(free), len(rest)))
        return [
            *run(source, aside, part, rest),
            *run(source, target, count - part, rest),
            *run(aside, target, part, rest),
        ]

    return run(move.source, move.target, move.count, empties)


# Presets whose optimised lines (``-opt``) are the shortest, per game, fastest first, from
# measuring every preset the library ships on deals 1-16 (bench/inprocess/solver_bench.py compares
# the result with the library's own shortest line).
SHORT_LINES: Final[dict[str, tuple[str, ...]]] = {
    "freecell": ("looking-glass", "qualified-seed"),
    # looking-glass first: it rarely gives the shortest line, but it finds one at once
    # where the others take long or fail, so a slow machine still answers
    "bakers_game": ("looking-glass", "sand-stone", "qualified-seed-improved"),
    "beleaguered_castle": ("looking-glass", "sand-stone", "video-editing"),
}


def shortest(
    position: Position, *, max_seconds: float, stop: Callable[[], bool] | None = None
) -> Solution | None:
    """The shortest winning line the library's short-line presets find (each optimised)
    within ``max_seconds`` in all; None if none of them finds one (their "not solvable" is
    no proof: ask :func:`solve` with an atomic preset for the verdict)."""
    started = time.perf_counter()
    best: Solution | None = None
    iterations = 0
    presets = SHORT_LINES.get(position.name, ())
    for n, preset in enumerate(presets):
        left = max_seconds - (time.perf_counter() - started)
        if left <= 0 or (stop is not None and stop()):
            break
        # the last preset may use what is left, the others half of it each
        share = left if n == len(presets) - 1 else left / 2
        found = solve(position, max_seconds=share, preset=preset, optimize=True, stop=stop)
        if found is None:
            continue
        iterations += found.states
        if found.moves is not None and (best is None or len(found.moves) < len(best.moves or ())):
            best = found
    if best is None:
        return None
    return Solution(WINNABLE, best.moves, iterations, time.perf_counter() - started)
