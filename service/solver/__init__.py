"""Hints and analysis: routes.py (the handlers), hints.py, postmortem.py and daily.py (the
answers), analyses.py (finished games' analyses, kept), lines.py (winning lines against
the rules), verdicts.py (the Solver) on cache.py (verdicts by canonical position) and
pool.py (the search processes), fcsolve.py (Freecell Solver through ctypes)."""
