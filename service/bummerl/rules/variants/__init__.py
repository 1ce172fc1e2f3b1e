"""Built-in variants: importing this package registers them (one small module per variant)."""

from . import obican, original66, santase, schnapsen_at, snapszer_hu2, snapszer_hu3r, stockschnapsen

__all__ = ["obican", "original66", "santase", "schnapsen_at", "snapszer_hu2", "snapszer_hu3r", "stockschnapsen"]
