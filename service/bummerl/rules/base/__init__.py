"""Level 0 of the engine stack: cards, actions, tricks, errors, the view shapes and the events.

Standard library only; imports nothing of the levels above (:mod:`bummerl.rules.table`,
:mod:`bummerl.rules.deals`, :mod:`bummerl.rules.match`, :mod:`bummerl.rules.variants`).
"""
