"""Level 3 of the engine stack: the match.

:mod:`.state` (:class:`MatchState` over any deal class), :mod:`.plans` (the match plans: the
two-player Bummerl, the rotation games, the contract games; a plan returns a ``Settlement`` the
match applies), :mod:`.snapshot` (the log, the stored snapshot, its layout tag and the replay
fallback) and :mod:`.infoset` (the information set of a seat, the onlooker's view, the events).
Imports :mod:`bummerl.rules.base`, :mod:`bummerl.rules.table`, :mod:`bummerl.rules.deals` and this
level.
"""
