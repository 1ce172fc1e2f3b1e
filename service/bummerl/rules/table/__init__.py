"""Level 1 of the engine stack: the table a deal is played at.

:mod:`.options` (:class:`OptionSpec`, one frozen :class:`Catalogue` per deal skeleton),
:mod:`.behaviour` (what each enum option value does, as tables), :mod:`.variant`
(:class:`VariantSpec`, :class:`Rules`, ``derive``, the registry), :mod:`.outcome` (the end
reasons as enums, :class:`DealOutcome`, :class:`DealResult`, :class:`Settlement`) and
:mod:`.protocols` (the :class:`Deal` and :class:`MatchPlan` protocols). Imports only
:mod:`bummerl.rules.base` and this level.
"""
