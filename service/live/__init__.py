"""Live events: WebSocket streams of games' and races' events, across instances."""
