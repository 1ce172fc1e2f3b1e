"""Use cases of the service without protobuf: matches, seats, tokens, versions, clocks and
timeouts (docs/DESIGN.md §3, §5)."""

from .clocks import TIMEOUT_POLICIES, Clocks, TimeControl, TimeControlError
from .matches import CreatedMatch, MatchService, Update
from .reaper import Reaper

__all__ = [
    "TIMEOUT_POLICIES", "Clocks", "CreatedMatch", "MatchService", "Reaper", "TimeControl", "TimeControlError", "Update",
]
