"""Live events over WebSocket: delivery, LISTEN/NOTIFY and NATS, streams closed by the
service."""
