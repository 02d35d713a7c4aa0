"""Target drivers: one interface (``base.Target``), one module per kind of target, one registry.

``reference`` — the reference in-process (fresh per scenario, manual clock; the default);
``process``  — the reference as a `serve` subprocess (real process, restartable, manual clock);
``http``     — any kube32 API server at a URL (capabilities detected);
``rig``      — ESP32 boards over serial (kube32.harness).
"""
