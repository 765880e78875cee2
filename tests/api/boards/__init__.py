"""Boards through the API: leaderboards and a won game's standing."""
