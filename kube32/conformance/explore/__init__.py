"""``kube32-conformance explore``: model-based differential testing. Hypothesis' stateful testing
(``machine.py``) drives the areas' rules (``fleet.py``, ``areas/``) as Gherkin steps of the suite
(``gherkin.py``, ``executor.py``) on the target and on an in-process reference (``sides.py``),
compares after each step what the document decides (``case.py``, ``readings.py``, ``diagnosis.py``),
and shrinks a disagreement (``session.py``, ``shrink.py``) into a replayable ``.feature``."""
