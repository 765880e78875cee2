"""Open connections per client address, counted in one table for all the WORKERS
processes of a machine (MAX_CONNECTIONS_PER_ADDRESS; service/serving/server.py uses it).

A slot of the table is an address's fingerprint and one count per worker process. A
worker writes only its own count: taking a place reads every worker's count of the
address and adds one to its own, under an exclusive lock on the table's file (flock, which
the kernel drops with a process that dies holding it); giving a place back takes one off
its own count and needs no lock. A worker that dies leaves its counts behind, and its
replacement, started in its place (the same column), sets them to zero before it serves:
the connections they counted died with it.

The table is a file in /dev/shm, made by the supervisor and mapped by each worker
(`SharedAddressCounts`), or a bytearray of this process's (`AddressCounts.private`).
Memory is bounded: a slot whose counts are all zero is free for another address; when
every slot of an address's window is held by others, its connection is let in uncounted
(lenient, never wrongly strict).
"""

from __future__ import annotations

import fcntl
import mmap
import os
import struct
from typing import Any

from service.base import shm
from service.base.shm import Slots

REFUSED = -1  # take(): the address holds as many connections as it may
UNCOUNTED = -2  # take(): no slot for the address; let in without counting


class AddressCounts:
    """The table: `slots` slots of (fingerprint, a count per worker), found by open
    addressing over a window of PROBES slots; this process counts in column `me`."""

    PROBES = 16
    FINGERPRINT = struct.Struct("<Q")
    COUNT = struct.Struct("<I")

    def __init__(self, buffer: Any, workers: int, me: int, lock_fd: int | None = None) -> None:
        self.slot = struct.Struct(f"<Q{workers}I")
        self.buffer = buffer
        self.slots = len(buffer) // self.slot.size
        if self.slots & (self.slots - 1) or self.slots < self.PROBES:
            raise ValueError("the slot count must be a power of two, at least PROBES")
        self.me = me
        self.lock_fd = lock_fd

    @classmethod
    def private(cls, slots: int = 1 << 12) -> AddressCounts:
        """A table for this process alone (one worker)."""
        return cls(bytearray(slots * struct.calcsize("<QI")), 1, 0)

    def _count_at(self, slot: int) -> int:
        return slot * self.slot.size + self.FINGERPRINT.size + self.COUNT.size * self.me

    def take(self, address: str, most: int) -> int:
        """One place for a connection from `address`: its slot, to give back when the
        connection closes; REFUSED when the address holds `most` already, UNCOUNTED when
        the table has no slot for it."""
        fp = Slots.fingerprint("connections", address)
        if self.lock_fd is not None:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX)
        try:
            slot, counts = self._find(fp)
            if slot < 0:
                return UNCOUNTED
            if counts is None:  # a new address: a free slot, whose counts are all zero
                self.FINGERPRINT.pack_into(self.buffer, slot * self.slot.size, fp)
            elif sum(counts) >= most:
                return REFUSED
            offset = self._count_at(slot)
            (mine,) = self.COUNT.unpack_from(self.buffer, offset)
            self.COUNT.pack_into(self.buffer, offset, mine + 1)
            return slot
        finally:
            if self.lock_fd is not None:
                fcntl.flock(self.lock_fd, fcntl.LOCK_UN)

    def _find(self, fp: int) -> tuple[int, tuple[int, ...] | None]:
        """The slot of `fp` and its counts, or a free slot and None (-1 when there is
        none). A slot is free when it was never used or all its counts are zero; a key's
        slot lies before the first never-used slot of its window, so a lookup stops there."""
        unpack, size, mask = self.slot.unpack_from, self.slot.size, self.slots - 1
        start = fp & mask
        free = -1
        for i in range(self.PROBES):
            j = (start + i) & mask
            slot_fp, *counts = unpack(self.buffer, j * size)
            if slot_fp == fp:
                return j, tuple(counts)
            if slot_fp == 0:
                return (j if free < 0 else free), None
            if free < 0 and not any(counts):
                free = j
        return free, None

    def give_back(self, slot: int) -> None:
        """The connection counted in `slot` closed."""
        offset = self._count_at(slot)
        (mine,) = self.COUNT.unpack_from(self.buffer, offset)
        self.COUNT.pack_into(self.buffer, offset, max(0, mine - 1))

    def forget_mine(self) -> None:
        """Set this process's counts to zero: those of a worker that died before it."""
        for slot in range(self.slots):
            self.COUNT.pack_into(self.buffer, self._count_at(slot), 0)


class SharedAddressCounts:
    """The table in a file in /dev/shm for the worker processes of one supervisor: made
    by the supervisor (`create`), passed to each worker process it starts (it pickles as
    its path), mapped there in the worker's column (`attach`), and removed when the
    supervisor stops. Files left behind by a supervisor that was killed are removed by
    the next one."""

    PREFIX = "solitaire-connections-"

    def __init__(self, path: str, workers: int, slots: int) -> None:
        self.path, self.workers, self.slots = path, workers, slots

    @classmethod
    def create(cls, workers: int, slots: int = 1 << 14) -> SharedAddressCounts:
        path = shm.create(cls.PREFIX, slots * struct.calcsize(f"<Q{workers}I"))
        return cls(path, workers, slots)

    def attach(self, me: int) -> AddressCounts:
        """The table as worker `me` (0 to workers - 1) counts in it, with the counts of
        the worker that held that place before set to zero. The file stays open (and
        mapped) as long as the process lives: its descriptor is the lock's."""
        fd = os.open(self.path, os.O_RDWR)
        block = mmap.mmap(fd, os.fstat(fd).st_size)
        counts = AddressCounts(memoryview(block), self.workers, me, fd)
        counts.forget_mine()
        return counts

    def remove(self) -> None:
        shm.remove(self.path)

