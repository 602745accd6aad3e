"""Every table is classed for a player's data (issue 28): either its rows about one player are
named (``storage.repo_privacy.ABOUT``, which the download reads and the privacy page describes),
or it says why it holds none. A new table fails here until it is classed."""

from __future__ import annotations

from storage.models import Base
from storage.repo_privacy import ABOUT, NOT_ABOUT_A_PLAYER


def test_every_table_is_either_about_a_player_or_says_why_not() -> None:
    about = {str(model.__tablename__) for model, _ in ABOUT}
    assert not about & set(NOT_ABOUT_A_PLAYER)
    tables = set(Base.metadata.tables)
    assert tables - about - set(NOT_ABOUT_A_PLAYER) == set()
    assert (about | set(NOT_ABOUT_A_PLAYER)) - tables <= {"alembic_version"}
