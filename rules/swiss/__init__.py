"""The qualification Swiss (rules 3.v): the FIDE Dutch pairing engine with its matching solver,
TRF files, each entrant's results and the standings with their tie-breaks."""
