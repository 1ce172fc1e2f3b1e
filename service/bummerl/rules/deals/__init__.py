"""Level 2 of the engine stack: the deal classes.

:mod:`.talon` (the two-player trick-and-draw deal, §1.5-§1.7; its phases in :mod:`.talon_state`,
its view in :mod:`.talon_view`, its constructors for searches in :mod:`.talon_search`),
:mod:`.outcomes` (the shared ends of a played-out two-player deal), :mod:`.contract` (the
contract skeleton of the three- and four-player games, §1.8) with :mod:`.contract_at`
(Bauernschnapsen, Talonschnapsen) and :mod:`.contract_hu` (the Hungarian sopron and four-player
games), and :mod:`.slots` (the snapshot helpers every deal class shares). Imports only
:mod:`bummerl.rules.base`, :mod:`bummerl.rules.table` and this level.
"""
