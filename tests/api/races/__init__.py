"""Races through the API: from creation to ranking, on one instance and on two."""
