"""kube32: the conformance toolkit for the kube32 control plane.

One import namespace for the whole distribution: ``kube32.spec`` (the contract), ``kube32.features``
(Gherkin), ``kube32.conformance`` (the runner and CLI), ``kube32.reference`` (the reference control
plane) and ``kube32.harness`` (the hardware-in-the-loop rig).

PYTEST_DONT_REWRITE: pytest marks an installed plugin's whole distribution, ``kube32``, for assertion
rewriting, and ``kube32-conformance run`` has imported this package before pytest starts; this
package holds no asserts, and the marker spares every run a PytestAssertRewriteWarning about it.
"""
