"""What the bot and its users say to each other: the grammar of a player's text, the notices the
bot sends, and private reports to the TDs."""
