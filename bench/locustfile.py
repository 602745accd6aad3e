"""The spectators of a final (issue 18), for locust: each user reads the public pages at about
1.6 requests a second (200 users: about 320 requests a second), weighted as a final's crowd
would: the bracket and the matches (``/pairings``; a match room is for its players and the
TDs) most, then the standings and the Candidates crosstable. Run by ``python -m bench.web``."""

from __future__ import annotations

from locust import FastHttpUser, constant_throughput, task


class Spectator(FastHttpUser):  # type: ignore[misc]
    wait_time = constant_throughput(1.6)

    @task(4)
    def bracket(self) -> None:
        self.client.get("/knockout", name="/knockout")

    @task(4)
    def pairings(self) -> None:  # the matches, their agreed times and scores
        self.client.get("/pairings", name="/pairings")

    @task(2)
    def standings(self) -> None:
        self.client.get("/standings", name="/standings")

    @task(2)
    def crosstable(self) -> None:
        self.client.get("/candidates", name="/candidates")
