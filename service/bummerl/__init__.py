"""Bummerl: game server for the Schnapsen family of card games."""

__version__ = "0.1.0"
