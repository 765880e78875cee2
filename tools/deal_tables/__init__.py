"""The makers of the tables of solvable deals (service/deals/tables): solve_deals.py drives
the solvers, bc_prove.c is Beleaguered Castle's exhaustive prover (bc_prove.py runs it)."""
