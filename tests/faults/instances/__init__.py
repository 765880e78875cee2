"""Faults of the service's own processes: workers, shutdown, several instances."""
