"""Benchmarks: `make bench` runs them all; each reports ratios against a reference run in
the same process (the machines are shared and noisy, so absolute figures mean little)."""
