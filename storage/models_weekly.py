"""Tables of the weekly feature (kept apart so features can grow their own tables)."""

from __future__ import annotations

from storage.models import Base

__all__ = ["Base"]
