"""Deals: which numbers are dealt, random and solvable deals, the tables of solvable deals."""
