"""Built-in variants: importing this package registers them (one small module per variant)."""

from . import (
    bauernschnapsen,
    obican,
    original66,
    santase,
    schnapsen_at,
    snapszer_hu2,
    snapszer_hu3r,
    snapszer_hu3s,
    snapszer_hu4,
    stockschnapsen,
    talonschnapsen,
)

__all__ = [
    "bauernschnapsen", "obican", "original66", "santase", "schnapsen_at", "snapszer_hu2", "snapszer_hu3r",
    "snapszer_hu3s", "snapszer_hu4", "stockschnapsen", "talonschnapsen",
]
