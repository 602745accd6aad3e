"""FIDE mode: how ``acwc pair`` runs unless told otherwise.

FIDE's rules for pairing programs (Handbook C.02, in force from 1 March 2026) ask an endorsed
program to work in FIDE mode by default and to allow there only what FIDE's rules provide.
The engine has no option that changes C.04.3; what a file can ask for beyond it is an
acceleration, and FIDE approves one method (C.04.5.1, Baku). So in FIDE mode:

* a file's ``250`` records must give exactly the Baku method's virtual points for its players
  and rounds (a ``192 ..._BAKU`` record without them is the method itself);
* other point systems, ``XXA`` accelerations and abnormal points are refused in any mode (the
  engine does not implement them: :mod:`rules.swiss.trf`).

Outside FIDE mode (``--outside-fide-mode``) any ``250`` records are paired as written. The
ACWC qualification pairs match results and is labelled outside FIDE mode in the TRF it
exports (:mod:`rules.swiss.qualification_pairing`).
"""

from __future__ import annotations

from rules.swiss.acceleration import baku_records, virtual_points
from rules.swiss.trf_model import TrfError, TrfTournament

__all__ = ["check_fide_mode"]


def check_fide_mode(tournament: TrfTournament) -> None:
    """Refuse what FIDE mode does not allow.

    Raises:
        TrfError: ``250`` records that are not the Baku method's, at the first of them.
    """
    records = tournament.accelerations
    if not records:
        return
    numbers = [player.number for player in tournament.players]
    rounds = tournament.total_rounds or max(record.last_round for record in records)
    if virtual_points(records, numbers) != virtual_points(
        baku_records(len(numbers), rounds), numbers
    ):
        raise TrfError(
            records[0].line,
            1,
            "FIDE mode allows only the Baku acceleration (C.04.5.1): these 250 records give "
            "other virtual points (--outside-fide-mode pairs them as written)",
        )
