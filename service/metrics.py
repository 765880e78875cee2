"""Prometheus metrics, one registry per application."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

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

    def render(self) -> bytes:
        return generate_latest(self.registry)
