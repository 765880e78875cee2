"""Prometheus metrics, one registry per application."""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class RequestCounts(Collector):
    """The requests by route, method and status, and their latency by route and method,
    as prometheus_client's Counter and Histogram show them, kept as plain numbers that
    the registry reads when /metrics is scraped: a request costs a few dict and list
    operations instead of a metric child's lookup and three locks. (The event loop's
    thread alone writes and reads them.) Methods outside HTTP's own are counted as OTHER,
    so that clients cannot grow the metrics without bound."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, int], list[float]] = {}  # [count, created]
        # per (route, method): a count per bucket (the last for above them all), the sum
        # of the latencies, and when the first came
        self.latency: dict[tuple[str, str], list[float]] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        if method not in METHODS:
            method = "OTHER"
        counted = self.counts.get((route, method, status))
        if counted is None:
            counted = self.counts[(route, method, status)] = [0, time.time()]
        counted[0] += 1
        timed = self.latency.get((route, method))
        if timed is None:
            timed = self.latency[(route, method)] = [0] * (len(BUCKETS) + 2) + [time.time()]
        timed[bisect_left(BUCKETS, seconds)] += 1
        timed[-2] += seconds

    def describe(self) -> Iterator[Metric]:
        return iter(())

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            "solitaire_http_requests", "HTTP requests by route, method and status",
            labels=["route", "method", "status"],
        )
        for (route, method, status), (count, created) in self.counts.items():
            requests.add_metric([route, method, str(status)], count, created=created)
        yield requests
        latency = HistogramMetricFamily(
            "solitaire_http_request_seconds", "HTTP request latency by route",
            labels=["route", "method"],
        )
        bounds = [*map(floatToGoString, BUCKETS), "+Inf"]
        for (route, method), timed in self.latency.items():
            cumulative, buckets = 0.0, []
            for bound, count in zip(bounds, timed[:-2], strict=True):
                cumulative += count
                buckets.append((bound, cumulative))
            latency.add_metric([route, method], buckets, timed[-2])
            latency.samples.append(Sample(
                "solitaire_http_request_seconds_created",
                {"route": route, "method": method}, timed[-1],
            ))
        yield latency


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.http = RequestCounts()
        self.registry.register(self.http)
        self.events = Counter(
            "solitaire_events_appended", "Game events appended to the log", ["type"],
            registry=self.registry,
        )
        self.cached_games = Gauge(
            "solitaire_cached_games", "Games whose position is kept in memory",
            registry=self.registry,
        )
        self.db_connections = Gauge(
            "solitaire_db_pool_connections",
            "Connections of the database pool (at most POOL_MAX): open, and idle among them",
            ["state"], registry=self.registry,
        )
        self.subscribers = Gauge(
            "solitaire_stream_subscribers", "Open live-event WebSockets", registry=self.registry,
        )
        self.analyses = Counter(
            "solitaire_analyses_computed",
            "Analyses of finished games computed (each is kept: service/solver/analyses.py)",
            registry=self.registry,
        )
        self.replays = Counter(
            "solitaire_game_logs_replayed",
            "Games read whole from their log, memory holding no copy of them",
            registry=self.registry,
        )
        self._replays_seen = 0

        self._events: dict[str, Any] = {}  # each type's child, looked up once

    def appended(self, kind: str) -> None:
        """An event of type `kind` appended to a game's log."""
        child = self._events.get(kind)
        if child is None:
            child = self._events[kind] = self.events.labels(kind)
        child.inc()

    def replayed(self, count: int) -> None:
        """The games read whole from their log so far (the backend counts them)."""
        self.replays.inc(count - self._replays_seen)
        self._replays_seen = count

    def render(self) -> bytes:
        return generate_latest(self.registry)
