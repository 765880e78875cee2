"""The rate counters themselves: token buckets, and the table of slots they live in (one
process's, or shared by an instance's workers), bounded and lenient when full."""

from __future__ import annotations

from service.base.ratelimit import TokenBuckets
from service.base.shm import SharedSlots, Slots

from .test_ratelimit import Clock


def test_a_bucket_takes_a_minutes_worth_at_once_then_refills_steadily() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=60, clock=clock)
    assert [buckets.take("a") for _ in range(60)] == [0.0] * 60
    assert buckets.take("a") == 1.0  # one a second: the next in 1 s
    assert buckets.take("b") == 0.0  # keys are independent
    clock.now += 0.5
    assert buckets.take("a") == 0.5
    clock.now += 0.5
    assert buckets.take("a") == 0.0
    clock.now += 3600
    assert [buckets.take("a") for _ in range(60)] == [0.0] * 60  # full again, not more
    assert buckets.take("a") > 0


def test_buckets_full_again_give_their_slots_to_other_keys() -> None:
    """The table is bounded: a thousand addresses pass through a 64-slot table as long as
    each one's bucket is full again before the slots run out."""
    clock = Clock()
    buckets = TokenBuckets(per_minute=30, clock=clock, slots=Slots.private(64))
    for i in range(1000):
        assert buckets.take(f"address {i}") == 0.0
        clock.now += 2.0  # one token back: full again
    assert buckets.slots.in_use(clock.now) == 0
    assert buckets.take("now") == 0.0
    assert buckets.slots.in_use(clock.now) == 1


def test_a_full_table_is_lenient_never_wrongly_strict() -> None:
    """When every slot of a key's window is in use, the slot closest to full is given up:
    that key starts again from a full bucket; no key is refused for another's use."""
    clock = Clock()
    slots = Slots.private(16)
    buckets = TokenBuckets(per_minute=2, clock=clock, slots=slots)
    for i in range(100):
        assert buckets.take(f"key {i}") == 0.0  # each key's first request passes
    assert buckets.take("key 99") == 0.0  # its second: still in the table
    assert buckets.take("key 99") > 0  # its third: refused, it was counted


def test_kinds_of_bucket_in_one_table_are_independent() -> None:
    clock = Clock()
    slots = Slots.private()
    writes = TokenBuckets(per_minute=1, clock=clock, slots=slots, kind="writes")
    players = TokenBuckets(per_minute=1, clock=clock, slots=slots, kind="players")
    assert writes.take("1.2.3.4") == 0.0
    assert players.take("1.2.3.4") == 0.0
    assert writes.take("1.2.3.4") == 60.0


def _take_in_another_process(shared: SharedSlots, n: int) -> None:
    buckets = TokenBuckets(per_minute=10, slots=shared.attach(), kind="k")
    for _ in range(n):
        buckets.take("ada")


def test_worker_processes_share_one_table() -> None:
    """The supervisor's table, mapped in another process: what one process takes, the
    other sees taken."""
    import multiprocessing

    shared = SharedSlots.create(1 << 10)
    try:
        proc = multiprocessing.get_context("spawn").Process(
            target=_take_in_another_process, args=(shared, 7)
        )
        proc.start()
        proc.join(30)
        assert proc.exitcode == 0
        buckets = TokenBuckets(per_minute=10, slots=shared.attach(), kind="k")
        assert [buckets.take("ada") for _ in range(3)] == [0.0] * 3
        assert buckets.take("ada") > 0
    finally:
        shared.remove()
