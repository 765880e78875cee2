"""The table of open connections per address (service/serving/addresses.py) on its own,
without a service: an address is refused past its most and takes a place back when one is
given back, a full table lets connections in uncounted, and the workers' counts of one
address add up, a replacement worker starting from none of its predecessor's.
"""

from __future__ import annotations

from pathlib import Path

from service.serving.addresses import REFUSED, UNCOUNTED, AddressCounts, SharedAddressCounts


def test_the_table_counts_an_address_refuses_past_the_most_and_takes_places_back() -> None:
    counts = AddressCounts.private(64)
    places = [counts.take("10.0.0.1", 2) for _ in range(2)]
    assert places[0] == places[1] >= 0
    assert counts.take("10.0.0.1", 2) == REFUSED
    assert counts.take("10.0.0.2", 2) >= 0  # another address counts apart
    counts.give_back(places[0])
    assert counts.take("10.0.0.1", 2) == places[0]
    assert counts.take("10.0.0.1", 2) == REFUSED


def test_a_full_table_lets_connections_in_uncounted() -> None:
    counts = AddressCounts.private(16)  # one window: 16 addresses fill it
    slots = [counts.take(f"10.0.0.{i}", 1) for i in range(16)]
    assert sorted(slots) == list(range(16))
    assert counts.take("10.0.1.1", 1) == UNCOUNTED
    counts.give_back(slots[3])  # a slot whose counts are all zero is free again
    assert counts.take("10.0.1.1", 1) == slots[3]
    assert counts.take("10.0.0.3", 1) == UNCOUNTED


def test_workers_count_together_and_a_replacement_forgets_its_predecessors_counts() -> None:
    shared = SharedAddressCounts.create(workers=2, slots=64)
    try:
        first, second = shared.attach(0), shared.attach(1)
        assert first.take("10.0.0.1", 3) >= 0
        assert first.take("10.0.0.1", 3) >= 0
        assert second.take("10.0.0.1", 3) >= 0
        assert second.take("10.0.0.1", 3) == REFUSED  # two here, one there
        assert first.take("10.0.0.1", 3) == REFUSED
        shared.attach(0)  # the first worker died: its replacement starts in its place
        assert second.take("10.0.0.1", 3) >= 0
        assert second.take("10.0.0.1", 3) >= 0
        assert second.take("10.0.0.1", 3) == REFUSED
    finally:
        shared.remove()
    assert not Path(shared.path).exists()
