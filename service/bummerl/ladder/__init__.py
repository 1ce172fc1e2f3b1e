"""Ladders: scheduling, pairings, duplicate deals, ratings and statistics (DESIGN §5)."""
