"""Faults of clients: hostile input, fuzzing, leaks, rate limits, addresses."""
