"""Our Dutch pairings against caissify-pairings on random "pair the next round" states.

    PYTHONPATH=. python bench/pairing_diff.py [--states 10000] [--min-players 9]
        [--max-players 300] [--seed 0] [--reference] [--keep DIR] [--max-seconds S]

Random tournaments (``rules.swiss.generator``: field sizes drawn log-uniformly between the
bounds, 5-15 rounds, draws, forfeits, half-point byes and retirements at random rates) are
paired round by round by our engine; before each round the state is also given to caissify-
pairings, whose pairs agree with the FIDE-endorsed bbpPairings (its colours often do not, so
only the pairs and the bye are compared). With ``--reference`` the slow reference engine of
the tests (networkx matchings) pairs every state too, colours included. Rounds in which
caissify falls back to its backtracking or greedy pairer (its log says so) are counted apart,
not compared. ``--keep DIR`` writes each state where the engines disagree as a TRF file
(``acwc pair FILE`` pairs it again). ``--max-seconds`` (or Ctrl-C) stops early with the
figures so far. Prints the agreement; no assertions.
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rules.core.colour import Colour
from rules.swiss.dutch import RoundKind, RoundPairing, SwissPlayer, float_in_round
from rules.swiss.generator import GeneratorConfig, generate
from rules.swiss.trf import (
    TrfCell,
    TrfTournament,
    pair_trf_round,
    players_before,
    write_trf,
)


class _Fallbacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def caissify_input(
    players: Sequence[SwissPlayer],
) -> tuple[list[dict[str, object]], set[tuple[int, int]]]:
    """The present players as caissify wants them, with C.04.3's floats and bye rights."""
    by_number = {player.number: player for player in players}
    entries: list[dict[str, object]] = []
    previous: set[tuple[int, int]] = set()
    for player in players:
        for record in player.history:
            if record.kind is RoundKind.PLAYED and record.opponent is not None:
                previous.add(
                    (min(player.number, record.opponent), max(player.number, record.opponent))
                )
        if not player.present:
            continue
        rounds = len(player.history)
        entries.append(
            {
                "id": player.number,
                "score": float(player.score),
                "rating": 10000 - player.number,
                "pairing_number": player.number,
                "starting_number": player.number,
                "color_hist": [
                    "white" if record.colour is Colour.WHITE else "black"
                    for record in player.history
                    if record.kind is RoundKind.PLAYED
                ],
                "float_history": [
                    float_in_round(player, back, by_number) for back in range(rounds, 0, -1)
                ],
                "bye_count": sum(
                    record.kind is RoundKind.PAIRING_BYE
                    or (record.kind is RoundKind.ABSENT and record.points >= 1)
                    for record in player.history
                ),
                "forfeit_win_count": sum(
                    record.kind is RoundKind.FORFEIT and record.points >= 1
                    for record in player.history
                ),
            }
        )
    return entries, previous


def _pairs(pairing: RoundPairing) -> tuple[frozenset[frozenset[int]], int | None]:
    return frozenset(frozenset((b.white, b.black)) for b in pairing.boards), pairing.bye


def _caissify_pairs(
    caissify: object, players: Sequence[SwissPlayer], round_number: int, rounds: int
) -> tuple[frozenset[frozenset[int]], int | None]:
    entries, previous = caissify_input(players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = caissify.generate_pairings(  # type: ignore[attr-defined]
            "dutch", entries, previous, round_number, rounds
        )
    pairs = frozenset(
        frozenset((entry["white_id"], entry["black_id"]))
        for entry in theirs
        if not entry.get("bye")
    )
    bye = next((entry["white_id"] for entry in theirs if entry.get("bye")), None)
    return pairs, bye


def _state(tournament: TrfTournament, round_number: int) -> TrfTournament:
    """The tournament as it stood before ``round_number``: earlier rounds, and this round's
    absences (cells that are not a pairing)."""
    players = []
    for player in tournament.players:
        cells: list[TrfCell] = list(player.rounds[: round_number - 1])
        if len(player.rounds) >= round_number and not player.rounds[round_number - 1].is_paired:
            cells.append(player.rounds[round_number - 1])
        # The score column would be the final one: left blank, it is not checked.
        static = player.static[:72] + " " * 4 + player.static[76:]
        players.append(replace(player, static=static, rounds=tuple(cells)))
    return replace(tournament, players=tuple(players))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=10000, help="states to compare")
    parser.add_argument("--min-players", type=int, default=9)
    parser.add_argument("--max-players", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first tournament")
    parser.add_argument("--reference", action="store_true", help="also the slow reference")
    parser.add_argument("--keep", type=Path, help="write disagreeing states here as TRF")
    parser.add_argument("--progress", type=int, default=500, help="print every N states")
    parser.add_argument(
        "--max-seconds", type=float, default=0, help="stop after this long (0: no limit)"
    )
    arguments = parser.parse_args(argv)
    import caissify_pairings as caissify

    reference = None
    if arguments.reference:
        from tests.rules import dutch_reference as reference
    fallbacks = _Fallbacks()
    logging.getLogger("caissify_pairings").addHandler(fallbacks)
    logging.getLogger("caissify_pairings").setLevel(logging.INFO)
    logging.getLogger("caissify_pairings").propagate = False
    if arguments.keep is not None:
        arguments.keep.mkdir(parents=True, exist_ok=True)
    compared = agreed = skipped = reference_agreed = 0
    disagreements: list[str] = []
    seed = arguments.seed
    start = time.perf_counter()
    low, high = math.log(arguments.min_players), math.log(arguments.max_players)
    stop_at = start + arguments.max_seconds if arguments.max_seconds else math.inf
    try:
        while compared + skipped < arguments.states and time.perf_counter() < stop_at:
            rng = random.Random(seed)
            config = GeneratorConfig(
                players=round(math.exp(rng.uniform(low, high))),
                rounds=rng.randint(5, 15),
                draw_percentage=rng.randint(10, 50),
                forfeit_rate=rng.choice((0, 6, 12, 30)),
                retired_rate=rng.choice((0, 15, 60, 200)),
                half_point_bye_rate=rng.choice((0, 8, 20, 100)),
                seed=seed,
            )
            seed += 1
            made = generate(config).tournament
            assert made.total_rounds is not None
            last = max(len(player.rounds) for player in made.players)
            for round_number in range(1, last + 1):
                if compared + skipped >= arguments.states or time.perf_counter() >= stop_at:
                    break
                state = _state(made, round_number)
                players = players_before(state, round_number)
                ours = pair_trf_round(state, round_number)
                fallbacks.count = 0
                try:
                    theirs = _caissify_pairs(caissify, players, round_number, made.total_rounds)
                except Exception:  # caissify gave up: not a comparison
                    theirs = None
                if theirs is None or fallbacks.count:
                    skipped += 1
                    continue
                compared += 1
                same = _pairs(ours) == theirs
                agreed += same
                if reference is not None:
                    slow = reference.pair_round(
                        players,
                        round_number=round_number,
                        total_rounds=made.total_rounds,
                        initial_colour=made.initial_colour or Colour.WHITE,
                    )
                    reference_agreed += slow == ours
                if not same:
                    name = f"seed{config.seed}-round{round_number}"
                    disagreements.append(f"{name} ({config.players} players)")
                    if arguments.keep is not None:
                        (arguments.keep / f"{name}.trf").write_text(write_trf(state))
                if (compared + skipped) % arguments.progress == 0:
                    print(
                        f"... {compared + skipped} states, {agreed}/{compared} agree, "
                        f"{time.perf_counter() - start:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    except KeyboardInterrupt:  # stopped by hand: the figures so far
        print("interrupted", file=sys.stderr)
    share = 100 * agreed / compared if compared else 0.0
    print(f"states: {compared + skipped} ({seed - arguments.seed} tournaments)")
    print(f"compared with caissify: {compared}; same pairs and bye: {agreed} ({share:.2f} %)")
    print(f"not compared (caissify fell back to backtracking or greedy): {skipped}")
    if reference is not None:
        print(f"same boards, colours and bye as the slow reference: {reference_agreed}/{compared}")
    for name in disagreements:
        print(f"differs: {name}")
    print(f"time: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
