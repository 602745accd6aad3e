"""The qualification Swiss (rules 3.v): the FIDE Dutch pairing engine with its matching solver,
TRF files, each entrant's results and the standings with their tie-breaks, and what C.04.A asks
of an endorsed program: the pairings checker and the random tournament generator."""
