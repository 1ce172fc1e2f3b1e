"""Use cases of the service without protobuf: matches, seats, tokens, versions, clocks and
timeouts (docs/DESIGN.md §3, §5)."""

from .cache import MatchCache
from .clocks import TIMEOUT_POLICIES, Clocks, TimeControl, TimeControlError, TimeoutPolicy
from .log import LogEntry, OutcomeAction, OutcomeKind, ResignReason
from .matches import CreatedMatch, MatchService, MatchSettings, Update
from .reaper import Reaper
from .versions import VersionCache

__all__ = [
    "TIMEOUT_POLICIES", "Clocks", "CreatedMatch", "LogEntry", "MatchCache", "MatchService", "MatchSettings",
    "OutcomeAction", "OutcomeKind", "Reaper", "ResignReason", "TimeControl", "TimeControlError", "TimeoutPolicy",
    "Update", "VersionCache",
]
