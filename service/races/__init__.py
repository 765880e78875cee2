"""Races: several players, one deal, one clock."""
