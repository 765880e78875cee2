"""Benchmarks of the service as a process of its own answering HTTP requests, under wrk,
callgrind or clients of their own, each against a floor or a reference server of the
same run (bare_304.py: a bare aiohttp handler's 304)."""
