"""The requests' metrics (service/base/metrics.py, RequestCounts) are kept as plain numbers
and read when /metrics is scraped: what a scrape shows is what prometheus_client's own
Counter and Histogram would show for the same requests."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from service.base.metrics import BUCKETS, Metrics

REQUESTS = [
    ("/v1/games/{game_id}/moves", "POST", 201, 0.004),
    ("/v1/games/{game_id}/moves", "POST", 201, 0.0005),  # on a bucket's bound
    ("/v1/games/{game_id}/moves", "POST", 422, 0.012),
    ("/v1/games/{game_id}", "GET", 304, 0.0002),
    ("/v1/games/{game_id}", "GET", 200, 7.5),  # above every bucket
    ("unmatched", "BREW", 404, 0.001),  # not an HTTP method: counted as OTHER
]


def samples(text: bytes) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
    """Every sample but the `_created` times, which differ by when each was made."""
    return {
        (s.name, tuple(sorted(s.labels.items())), s.value)
        for family in text_string_to_metric_families(text.decode())
        for s in family.samples
        if not s.name.endswith("_created")
    }


def created(text: bytes) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    return {
        (s.name, tuple(sorted(s.labels.items())))
        for family in text_string_to_metric_families(text.decode())
        for s in family.samples
        if s.name.endswith("_created")
    }


def reference() -> bytes:
    registry = CollectorRegistry()
    counter = Counter("solitaire_http_requests", "HTTP requests by route, method and status",
                      ["route", "method", "status"], registry=registry)  # fmt: skip
    histogram = Histogram("solitaire_http_request_seconds", "HTTP request latency by route",
                          ["route", "method"], buckets=BUCKETS, registry=registry)  # fmt: skip
    for route, method, status, seconds in REQUESTS:
        method = method if method != "BREW" else "OTHER"
        counter.labels(route, method, str(status)).inc()
        histogram.labels(route, method).observe(seconds)
    return generate_latest(registry)


def test_a_scrape_shows_what_prometheus_clients_own_metrics_would() -> None:
    metrics = Metrics()
    for request in REQUESTS:
        metrics.http.observe(*request)
    ours, theirs = metrics.render(), reference()
    requests_and_latency = {
        s for s in samples(ours) if s[0].startswith("solitaire_http_request")
    }
    assert requests_and_latency == samples(theirs)
    assert {c for c in created(ours) if c[0].startswith("solitaire_http_request")} == created(
        theirs
    )


def test_events_appended_are_counted_by_type() -> None:
    metrics = Metrics()
    for kind in ("CardMoved", "CardMoved", "GameWon"):
        metrics.appended(kind)
    counted = {s[1]: s[2] for s in samples(metrics.render())
               if s[0] == "solitaire_events_appended_total"}  # fmt: skip
    assert counted == {(("type", "CardMoved"),): 2.0, (("type", "GameWon"),): 1.0}
