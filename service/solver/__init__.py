"""Hints and analysis: the solver pool, Freecell Solver, daily deals."""
