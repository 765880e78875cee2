"""`python -m service verify`: every game's and race's log against what was derived from it."""
