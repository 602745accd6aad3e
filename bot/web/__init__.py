"""The web app: login with Lichess, match room, TD desk, public pages (issue 7)."""
