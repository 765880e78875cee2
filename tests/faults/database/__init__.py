"""Faults of the database: killed, hung, failed over, out of connections; and verify."""
