"""Grammar, spelling and style checking: engines, their merge, and the checker that runs them."""
