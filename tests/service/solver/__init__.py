"""The solver and the deals: searches, hints, the fair share of the solver's places, the
tables of solvable deals and their grades."""
