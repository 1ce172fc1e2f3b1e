"""Use cases of the service without protobuf: matches, seats, tokens, versions (DESIGN §3)."""

from .matches import CreatedMatch, MatchService, Update

__all__ = ["CreatedMatch", "MatchService", "Update"]
