"""Ladders: scheduling, pairings, duplicate deals, ratings and statistics (docs/DESIGN.md §5)."""
