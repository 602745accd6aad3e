"""One match week (rules 4-6): its calendar, the scheduling negotiation, the deadlines it sets,
conduct during play, forfeits, and whether a Lichess game belongs to the match."""
