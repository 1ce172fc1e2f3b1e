"""Use cases of the service without protobuf: matches, seats, tokens, versions, clocks and
timeouts (docs/DESIGN.md §3, §5)."""

from .clocks import TIMEOUT_POLICIES, Clocks, TimeControl, TimeControlError
from .log import LogEntry
from .matches import CreatedMatch, MatchService, MatchSettings, Update
from .reaper import Reaper
from .versions import VersionCache

__all__ = [
    "TIMEOUT_POLICIES", "Clocks", "CreatedMatch", "LogEntry", "MatchService", "MatchSettings", "Reaper", "TimeControl",
    "TimeControlError", "Update", "VersionCache",
]
