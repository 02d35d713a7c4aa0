"""The subcommands of ``kube32-conformance``, one module each (``cli.py`` dispatches); ``arguments``
holds the argument types they share."""
