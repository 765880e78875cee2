"""The solver through the API: hints, analysis, solvable and daily deals, fair shares."""
