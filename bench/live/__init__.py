"""Benchmarks of live events over WebSocket: delivery to many watchers of a game, of a race,
and over four instances through LISTEN/NOTIFY and NATS."""
