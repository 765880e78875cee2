"""The HTTP/JSON and WebSocket service around the engine."""
