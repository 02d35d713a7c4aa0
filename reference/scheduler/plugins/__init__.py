"""Scheduler plugins, one module per filter (in the document's order) and one for the score.

Each module exports ``NAME``, its ``REASON_*`` strings (upstream's wording, from ``spec.reasons``)
and one class implementing ``framework.FilterPlugin`` or ``framework.ScorePlugin``. Pure: no I/O.
"""
