"""The limits per address count an IPv6 client by its /64: a network gives one host a
block of that size, and the host may send from any address in it."""

from __future__ import annotations

from service.base.requests import client_address


def test_an_ipv6_client_is_counted_by_its_64() -> None:
    one_host = ["2001:db8:1:2::1", "2001:db8:1:2::ffff:1", "2001:db8:1:2:aaaa:bbbb:cccc:dddd"]
    assert {client_address(a) for a in one_host} == {"2001:db8:1:2::/64"}
    assert client_address("2001:db8:1:3::1") == "2001:db8:1:3::/64"  # the next block
    assert client_address("fe80::1%eth0") == "fe80::/64"


def test_an_ipv4_client_is_counted_by_its_address() -> None:
    assert client_address("192.0.2.7") == "192.0.2.7"
    assert client_address("192.0.2.8") == "192.0.2.8"
    # an IPv4 peer of a dual-stack socket, mapped into IPv6, is that IPv4 address
    assert client_address("::ffff:192.0.2.7") == "192.0.2.7"


def test_an_unknown_peer_is_one_client() -> None:
    assert client_address(None) == client_address("") == "-"
