"""Blocks of memory that the worker processes of one machine share: files in /dev/shm
(the temporary folder where there is none) named after the supervisor that made them,
which each worker maps. A supervisor removes its blocks when it stops, and those of
supervisors that were killed when it makes its own. In them, the rate counters (`Slots`,
`SharedSlots`: service/base/ratelimit.py counts with them)."""

from __future__ import annotations

import contextlib
import hashlib
import math
import mmap
import multiprocessing
import os
import struct
import tempfile
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


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


class Slots:
    """Rate counters in a fixed block of memory: `slots` slots of (key fingerprint, tokens,
    as of, full again at), found by open addressing over a window of PROBES slots.

    The block is a bytearray in one process, or shared memory that every worker process of
    a machine maps (`SharedSlots`): WORKERS processes then count a client's requests
    together, so a client gets the same allowance whichever worker its connections reach.
    Memory is bounded by construction: a slot whose bucket is full again is free for
    another key, and when a whole window is in use the slot closest to full is given up
    (its key starts again with a full bucket: lenient, never wrongly strict).

    A key's slot always lies before the first never-used slot of its window (slots are
    never cleared), so a lookup stops there.  Keys are hashed with BLAKE2b, the same in
    every process (Python's `hash` of a string is salted per process).
    """

    SLOT = struct.Struct("<Qddd")
    PROBES = 16

    def __init__(self, buffer: memoryview | bytearray, lock: Any = None) -> None:
        self.buffer = buffer
        self.slots = len(buffer) // self.SLOT.size
        if self.slots & (self.slots - 1) or self.slots < self.PROBES:
            raise ValueError("the slot count must be a power of two, at least PROBES")
        self.lock = lock

    @classmethod
    def private(cls, slots: int = 1 << 14) -> Slots:
        """A table for this process alone (one worker, or tests)."""
        return cls(bytearray(slots * cls.SLOT.size))

    @staticmethod
    def fingerprint(kind: str, key: Hashable) -> int:
        # a header's bytes that are not UTF-8 come as lone surrogates: kept, not refused
        text = f"{kind}\0{key}".encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(text, digest_size=8).digest()
        return int.from_bytes(digest, "little") or 1

    def take(
        self, kind: str, key: Hashable, capacity: float, rate: float, now: float,
        cost: float = 1.0,
    ) -> float:
        """Take `cost` tokens from `key`'s bucket (of `kind`): 0.0 when there were as
        many, else the seconds until there will be."""
        fp = self.fingerprint(kind, key)
        with self._locked():
            slot, found = self._find(fp, now)
            if found is None:
                tokens = capacity
            else:
                tokens = min(capacity, found[0] + (now - found[1]) * rate)
            if tokens >= cost:
                tokens -= cost
                wait = 0.0
            else:
                wait = (cost - tokens) / rate
            self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, tokens, now,
                                now + (capacity - tokens) / rate)  # fmt: skip
            return wait

    def give(self, kind: str, key: Hashable, capacity: float, rate: float, now: float,
             cost: float = 1.0) -> None:  # fmt: skip
        """Give `cost` tokens back to `key`'s bucket (a take whose request another limit
        refused): as though it had not been taken."""
        fp = self.fingerprint(kind, key)
        with self._locked():
            slot, found = self._find(fp, now)
            if found is None:
                return  # (full again, or given up for another key: full anyway)
            tokens = min(capacity, found[0] + (now - found[1]) * rate + cost)
            self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, tokens, now,
                                now + (capacity - tokens) / rate)  # fmt: skip

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The table's lock, held. A worker killed inside must not stop the others: past
        the timeout a take goes on unlocked (at worst two workers' takes of one key race)."""
        lock = self.lock
        locked = lock is None or lock.acquire(timeout=0.05)
        try:
            yield
        finally:
            if lock is not None and locked:
                lock.release()

    def window(self, kind: str, key: Hashable, most: int, span: float, now: float) -> float:
        """One take of `key` (of `kind`) when it has had fewer than `most` in the last
        `span` seconds (a sliding window, exact, where a bucket lets twice as many through
        in its first `span`): 0.0, else the seconds until the oldest of them leaves the
        window. Each take is kept in a slot of its own, (key, i) for i < most, for `span`
        seconds: meant for a small `most` (link-code tries)."""
        with self._locked():
            takes, free = self._takes(kind, key, most, span, now)
            if free is None:
                return max(min(at for _, _, at in takes) + span - now, 1e-3)
            fp, slot = free
            self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, 0.0, now, now + span)
            return 0.0

    def unwindow(self, kind: str, key: Hashable, most: int, span: float, now: float) -> None:
        """Take back `key`'s latest take of `window` (a try that was never judged): its
        slot is left as one `span` old, free for the next take."""
        with self._locked():
            takes, _ = self._takes(kind, key, most, span, now)
            if takes:
                fp, slot, _ = max(takes, key=lambda take: take[2])
                self.SLOT.pack_into(self.buffer, slot * self.SLOT.size, fp, 0.0, now - span, now)

    def _takes(
        self, kind: str, key: Hashable, most: int, span: float, now: float
    ) -> tuple[list[tuple[int, int, float]], tuple[int, int] | None]:
        """`key`'s takes of `window` in the last `span` seconds, each (fingerprint, slot,
        when), and the first of its `most` slots that is free, or None (the lock held)."""
        takes: list[tuple[int, int, float]] = []
        free: tuple[int, int] | None = None
        for i in range(most):
            fp = self.fingerprint(kind, f"{key}\0{i}")
            slot, found = self._find(fp, now)
            if found is not None and found[1] > now - span:
                takes.append((fp, slot, found[1]))
            elif free is None:
                free = fp, slot
        return takes, free

    def _find(self, fp: int, now: float) -> tuple[int, tuple[float, float] | None]:
        """The slot of `fp` with its (tokens, as of), or a free slot and None."""
        unpack, size, mask = self.SLOT.unpack_from, self.SLOT.size, self.slots - 1
        start = fp & mask
        free: int | None = None
        closest, closest_at = start, math.inf
        for i in range(self.PROBES):
            j = (start + i) & mask
            slot_fp, tokens, stamp, full_at = unpack(self.buffer, j * size)
            if slot_fp == fp:
                return j, (tokens, stamp)
            if slot_fp == 0:
                return (j if free is None else free), None
            if free is None:
                if full_at <= now:
                    free = j
                elif full_at < closest_at:
                    closest, closest_at = j, full_at
        return (closest if free is None else free), None

    def in_use(self, now: float) -> int:
        """Slots whose bucket is not full yet."""
        size = self.SLOT.size
        return sum(
            1
            for j in range(self.slots)
            if self.SLOT.unpack_from(self.buffer, j * size)[0]
            and self.SLOT.unpack_from(self.buffer, j * size)[3] > now
        )


class SharedSlots:
    """A `Slots` block in shared memory (a file in /dev/shm, mapped) for the worker
    processes of one supervisor: made by the supervisor (`create`), passed to each worker
    process it starts (it pickles as its path and lock), mapped there (`attach`), and
    removed when the supervisor stops.  Blocks left behind by a supervisor that was killed
    are removed by the next one."""

    PREFIX = "solitaire-limits-"

    def __init__(self, path: str, slots: int, lock: Any) -> None:
        self.path, self.slots, self.lock = path, slots, lock
        self._map: mmap.mmap | None = None

    @classmethod
    def create(cls, slots: int = 1 << 16) -> SharedSlots:
        path = create(cls.PREFIX, slots * Slots.SLOT.size)
        return cls(path, slots, multiprocessing.get_context("spawn").Lock())

    def attach(self) -> Slots:
        if self._map is None:
            with open(self.path, "r+b") as f:
                self._map = mmap.mmap(f.fileno(), self.slots * Slots.SLOT.size)
        return Slots(memoryview(self._map), self.lock)

    def remove(self) -> None:
        remove(self.path)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "slots": self.slots, "lock": self.lock}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["slots"], state["lock"])  # type: ignore[misc]
