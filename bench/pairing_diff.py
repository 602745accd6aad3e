"""Our Dutch pairings against caissify-pairings and bbpPairings on random round states.

    PYTHONPATH=. python bench/pairing_diff.py [--states 10000] [--min-players 9]
        [--max-players 300] [--seed 0] [--reference] [--keep DIR] [--max-seconds S]
        [--bbp PATH [--no-caissify] [--bbp-timeout S]]

Random tournaments (``rules.swiss.generator``: field sizes drawn log-uniformly between the
bounds, 5-15 rounds, draws, forfeits, half-point byes and retirements at random rates) are
paired round by round by our engine; before each round the state ("pair the next round") is
also given to caissify-pairings, whose pairs agree with the FIDE-endorsed bbpPairings (its
colours often do not, so only the pairs and the bye are compared). With ``--reference`` the
slow reference engine of the tests (networkx matchings) pairs every state too, colours
included. Rounds in which caissify falls back to its backtracking or greedy pairer (its log
says so) are counted apart, not compared. ``--keep DIR`` writes each state where the engines
disagree as a TRF file (``acwc pair FILE`` pairs it again). ``--max-seconds`` (or Ctrl-C)
stops early with the figures so far. Prints the agreement; no assertions.

``--bbp PATH`` gives every state to bbpPairings as well (the FIDE-endorsed C++ engine; 6.0.0
implements the 2025 Dutch rules; build it outside this repository with its makefile, ``make
COMP=gcc``, which gives ``bbpPairings.exe``). The state is written as a TRF, its score column
filled in (bbpPairings requires and checks it), and paired by ``PATH --dutch FILE -p``. Its
pairs and bye are compared with ours and, separately, its colours (same boards, same
colours). A state it rejects or fails on (exit code, ``--bbp-timeout``) counts as an error
and is named and kept like a difference; the CPU time of this process and of bbpPairings is
printed apart. ``--no-caissify`` leaves caissify out (about a minute for a field of 300), so
that thousands of states of up to 300 players can be compared with bbpPairings alone.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from types import ModuleType

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


Boards = frozenset[tuple[int, int]]
"""The boards of a round as (white, black)."""


def _boards(pairing: RoundPairing) -> tuple[Boards, int | None]:
    return frozenset((b.white, b.black) for b in pairing.boards), pairing.bye


def _unordered(boards: Boards) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(board) for board in boards)


def bbp_trf(state: TrfTournament, round_number: int) -> str:
    """``state`` as a TRF for bbpPairings: the score column (positions 81-84), which it
    requires and checks, holds the points of every cell, this round's absence included (both
    bbpPairings and ``acwc pair`` accept that sum)."""
    scores: dict[int, Fraction] = {
        player.number: player.score for player in players_before(state, round_number + 1)
    }
    players = tuple(
        replace(
            player,
            static=f"{player.static[:72]}{float(scores[player.number]):4.1f}{player.static[76:]}",
        )
        for player in state.players
    )
    return write_trf(replace(state, players=players))


def parse_bbp_pairing(text: str) -> tuple[Boards, int | None]:
    """The boards and the bye of a pairing in the FIDE engines' output format: the number of
    pairs, then ``white black`` per line, ``player 0`` for the bye.

    Raises:
        ValueError: the text is not in that format.
    """
    lines = [line.split() for line in text.strip().splitlines()]
    if (
        not lines
        or any(not word.isdigit() for words in lines for word in words)
        or len(lines[0]) != 1
        or int(lines[0][0]) != len(lines) - 1
    ):
        raise ValueError(f"not a pairing: {text[:80]!r}")
    boards: set[tuple[int, int]] = set()
    bye: int | None = None
    for words in lines[1:]:
        if len(words) != 2:
            raise ValueError(f"not a pair: {' '.join(words)!r}")
        white, black = int(words[0]), int(words[1])
        if black == 0:
            if bye is not None:
                raise ValueError(f"two byes: {bye} and {white}")
            bye = white
        else:
            boards.add((white, black))
    return frozenset(boards), bye


def run_bbp(
    binary: Path, *arguments: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``binary --dutch ARGUMENTS...`` (bbpPairings), its output captured as text.

    Raises:
        subprocess.TimeoutExpired: no answer in ``timeout`` seconds.
    """
    return subprocess.run(
        [str(binary), "--dutch", *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _bbp_pairing(
    binary: Path, trf: str, directory: Path, timeout: float
) -> tuple[Boards, int | None] | str:
    """bbpPairings' pairing of the next round of ``trf``, or why there is none."""
    path = directory / "state.trf"
    path.write_text(trf)
    try:
        done = run_bbp(binary, str(path), "-p", timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"no answer in {timeout:g} s"
    if done.returncode != 0:
        return f"exit code {done.returncode}: {done.stderr.strip()[:200]}"
    try:
        return parse_bbp_pairing(done.stdout)
    except ValueError as error:
        return str(error)


@dataclass
class _BbpTally:
    compared: int = 0
    pairs: int = 0
    colours: int = 0
    errors: int = 0
    differences: list[str] = field(default_factory=list)

    def add(
        self, ours: tuple[Boards, int | None], theirs: tuple[Boards, int | None] | str, name: str
    ) -> bool:
        """Count one state; whether it is to be kept (a difference or an error)."""
        if isinstance(theirs, str):
            self.errors += 1
            self.differences.append(f"{name}: bbpPairings failed: {theirs}")
            return True
        self.compared += 1
        if (_unordered(ours[0]), ours[1]) != (_unordered(theirs[0]), theirs[1]):
            self.differences.append(f"{name}: pairs or bye")
            return True
        self.pairs += 1
        if ours[0] != theirs[0]:
            self.differences.append(f"{name}: colours")
            return True
        self.colours += 1
        return False

    def report(self) -> None:
        share = 100 * self.pairs / self.compared if self.compared else 0.0
        colours = 100 * self.colours / self.compared if self.compared else 0.0
        print(
            f"compared with bbpPairings: {self.compared}; same pairs and bye: {self.pairs} "
            f"({share:.2f} %); same colours too: {self.colours} ({colours:.2f} %)"
        )
        print(f"bbpPairings failed (exit code, timeout, output): {self.errors}")
        for line in self.differences:
            print(f"differs from bbpPairings: {line}")


def _config(seed: int, low: float, high: float) -> GeneratorConfig:
    rng = random.Random(seed)
    return GeneratorConfig(
        players=round(math.exp(rng.uniform(low, high))),
        rounds=rng.randint(5, 15),
        draw_percentage=rng.randint(10, 50),
        forfeit_rate=rng.choice((0, 6, 12, 30)),
        retired_rate=rng.choice((0, 15, 60, 200)),
        half_point_bye_rate=rng.choice((0, 8, 20, 100)),
        seed=seed,
    )


def _arguments(argv: list[str] | None) -> argparse.Namespace:
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
    parser.add_argument("--bbp", type=Path, help="bbpPairings.exe: compare with it too")
    parser.add_argument("--bbp-timeout", type=float, default=60, help="seconds per state")
    parser.add_argument("--no-caissify", action="store_true", help="leave caissify out")
    arguments = parser.parse_args(argv)
    if arguments.no_caissify and arguments.bbp is None:
        parser.error("--no-caissify needs --bbp")
    return arguments


def main(argv: list[str] | None = None) -> None:
    arguments = _arguments(argv)
    caissify: ModuleType | None = None
    if not arguments.no_caissify:
        caissify = importlib.import_module("caissify_pairings")
    reference: ModuleType | None = None
    if arguments.reference:
        reference = importlib.import_module("tests.rules.dutch_reference")
    fallbacks = _Fallbacks()
    logging.getLogger("caissify_pairings").addHandler(fallbacks)
    logging.getLogger("caissify_pairings").setLevel(logging.INFO)
    logging.getLogger("caissify_pairings").propagate = False
    if arguments.keep is not None:
        arguments.keep.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="pairing_diff-"))
    bbp = _BbpTally()
    states = compared = agreed = skipped = reference_agreed = 0
    disagreements: list[str] = []
    seed = arguments.seed
    start = time.perf_counter()
    low, high = math.log(arguments.min_players), math.log(arguments.max_players)
    stop_at = start + arguments.max_seconds if arguments.max_seconds else math.inf
    try:
        while states < arguments.states and time.perf_counter() < stop_at:
            config = _config(seed, low, high)
            seed += 1
            made = generate(config).tournament
            assert made.total_rounds is not None
            last = max(len(player.rounds) for player in made.players)
            for round_number in range(1, last + 1):
                if states >= arguments.states or time.perf_counter() >= stop_at:
                    break
                states += 1
                name = f"seed{config.seed}-round{round_number}"
                state = _state(made, round_number)
                players = players_before(state, round_number)
                ours = pair_trf_round(state, round_number)
                keep = False
                if arguments.bbp is not None:
                    theirs_bbp = _bbp_pairing(
                        arguments.bbp, bbp_trf(state, round_number), work, arguments.bbp_timeout
                    )
                    keep = bbp.add(_boards(ours), theirs_bbp, f"{name} ({config.players} players)")
                if caissify is not None:
                    fallbacks.count = 0
                    try:
                        theirs = _caissify_pairs(caissify, players, round_number, made.total_rounds)
                    except Exception:  # caissify gave up: not a comparison
                        theirs = None
                    if theirs is None or fallbacks.count:
                        skipped += 1
                    else:
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
                            disagreements.append(f"{name} ({config.players} players)")
                            keep = True
                if keep and arguments.keep is not None:
                    (arguments.keep / f"{name}.trf").write_text(bbp_trf(state, round_number))
                if states % arguments.progress == 0:
                    figures = f"{agreed}/{compared} agree" if caissify is not None else ""
                    if arguments.bbp is not None:
                        figures += f"{', ' if figures else ''}bbp {bbp.pairs}/{bbp.compared}"
                    print(
                        f"... {states} states, {figures}, {time.perf_counter() - start:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    except KeyboardInterrupt:  # stopped by hand: the figures so far
        print("interrupted", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"states: {states} ({seed - arguments.seed} tournaments)")
    if caissify is not None:
        share = 100 * agreed / compared if compared else 0.0
        print(f"compared with caissify: {compared}; same pairs and bye: {agreed} ({share:.2f} %)")
        print(f"not compared (caissify fell back to backtracking or greedy): {skipped}")
    if reference is not None:
        print(f"same boards, colours and bye as the slow reference: {reference_agreed}/{compared}")
    for name in disagreements:
        print(f"differs: {name}")
    if arguments.bbp is not None:
        bbp.report()
        children = os.times().children_user + os.times().children_system
        print(
            f"CPU: this process {time.process_time():.0f} s (generating, pairing, comparing), "
            f"bbpPairings {children:.0f} s"
        )
    print(f"time: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
