"""Blocks of memory that the worker processes of one machine share: files in /dev/shm
(the temporary folder where there is none) named after the supervisor that made them,
which each worker maps. A supervisor removes its blocks when it stops, and those of
supervisors that were killed when it makes its own."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def create(prefix: str, size: int) -> str:
    """A new block of `size` bytes (zeros) for this process, `prefix` and its pid: its path."""
    folder = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
    for path in folder.glob(f"{prefix}*"):
        owner = path.name.removeprefix(prefix)
        if owner.isdigit() and not _alive(int(owner)):
            with contextlib.suppress(OSError):
                path.unlink()
    path = folder / f"{prefix}{os.getpid()}"
    with open(path, "wb") as f:
        f.truncate(size)
    return str(path)


def remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
