"""Tools apart from the service: not installed with it, not run by ``make test``."""
