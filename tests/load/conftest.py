"""Load tests: bounded, loopback only, minutes long; run by ``tox -e load`` (KUBE32_LOAD=1), not by
the default test run (tests/conftest.py leaves this folder out without it)."""
