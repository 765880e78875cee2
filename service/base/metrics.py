"""Prometheus metrics, one registry per application."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "solitaire_http_requests", "HTTP requests by route, method and status",
            ["route", "method", "status"], registry=self.registry,
        )
        self.latency = Histogram(
            "solitaire_http_request_seconds", "HTTP request latency by route",
            ["route", "method"], buckets=BUCKETS, registry=self.registry,
        )
        self.events = Counter(
            "solitaire_events_appended", "Game events appended to the log", ["type"],
            registry=self.registry,
        )
        self.cached_games = Gauge(
            "solitaire_cached_games", "Games whose position is kept in memory",
            registry=self.registry,
        )
        self.subscribers = Gauge(
            "solitaire_stream_subscribers", "Open live-event WebSockets", registry=self.registry,
        )
        self.analyses = Counter(
            "solitaire_analyses_computed",
            "Analyses of finished games computed (each is kept: service/solver/analyses.py)",
            registry=self.registry,
        )

        # each route's children, looked up once (labels() costs a lock and a tuple a call)
        self._latency: dict[tuple[str, str], Any] = {}
        self._requests: dict[tuple[str, str, int], Any] = {}

    def observe_request(self, route: str, method: str, status: int, seconds: float) -> None:
        """One request served: its latency and its count by status. Methods outside HTTP's
        own are counted as OTHER, so that clients cannot grow the metrics without bound."""
        if method not in METHODS:
            method = "OTHER"
        key = (route, method)
        latency = self._latency.get(key)
        if latency is None:
            latency = self._latency[key] = self.latency.labels(route, method)
        latency.observe(seconds)
        counted = (route, method, status)
        counter = self._requests.get(counted)
        if counter is None:
            counter = self._requests[counted] = self.requests.labels(route, method, str(status))
        counter.inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
