"""Bummerl games for learning and search libraries (optional extra ``bummerl[learning]``).

* :mod:`bummerl.envs.openspiel`: the OpenSpiel game ``"bummerl"`` (``pyspiel.load_game``);
* :mod:`bummerl.envs.pettingzoo`: a PettingZoo AEC env, ``env(variant=..., **options)``;
* :mod:`bummerl.envs.gym`: a Gymnasium single-agent wrapper, ``SingleSeat(variant, opponents=...)``;
* :mod:`bummerl.envs.encoding`: the tensor encoding of an information set they share (numpy).

Each module imports its library at import time; this package imports none of them.
"""
