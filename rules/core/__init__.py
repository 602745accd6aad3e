"""The values every part of the rules shares: ids, players, matches, games, colours, scores, the
rule set with every number of the regulations, and the error tree."""
