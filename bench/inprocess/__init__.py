"""Benchmarks of code run in the benchmark's own process: the engine, a finished game's
analysis, leaderboard reads through service/boards, the solvers (and the hint endpoint
against a move)."""
