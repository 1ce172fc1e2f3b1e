"""Engine errors. Both action errors are ``ValueError`` and carry no transport codes (docs/DESIGN.md §2).

The service maps them: ``InvalidActionError`` -> INVALID_ARGUMENT, ``IllegalActionError`` ->
FAILED_PRECONDITION, ``InvalidOptionError``/``UnknownVariantError`` -> INVALID_ARGUMENT.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error raised by :mod:`bummerl.rules`."""


class InvalidActionError(RulesError):
    """An action that is malformed: unknown text (``"play XY"``), an id outside the action space."""


class IllegalActionError(RulesError):
    """A well-formed action that the current state forbids (SRV-2): the player must act again."""


class UnknownVariantError(RulesError, KeyError):
    """No variant has this id or alias (see :func:`bummerl.rules.find_variant`)."""

    def __str__(self) -> str:  # KeyError would add quotes
        return str(self.args[0]) if self.args else "unknown variant"


class InvalidOptionError(RulesError):
    """A table option that the variant does not have, or a value outside its allowed set (§13.2).

    ``option`` names the offending option so that clients can show which one was wrong.
    """

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"option {option!r}: {message}")
        self.option = option


class MatchOverError(IllegalActionError):
    """An action was submitted to a match that has already ended."""
