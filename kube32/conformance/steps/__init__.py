"""The step library: one module per domain. Every module here is loaded by the plugin.

Steps are black-box: they use only the ``k32`` fixture (HTTP API, kubelets, timeline, target
capabilities) and ``spec``. They never import the reference or the rig.
"""
