"""``run`` with a selection binds only the feature files it needs (``suite.binding``): each process of
the run — every xdist worker too — parses and builds tests for those alone, not for all of them."""

from __future__ import annotations

import os
import runpy

from kube32.conformance import suite


def bound() -> set[str]:
    """The tests ``kube32.conformance.bind`` makes (run afresh, as a process of the run imports it)."""
    return {name for name in runpy.run_module("kube32.conformance.bind") if name.startswith("test_")}


def test_a_selection_binds_only_its_feature_files_and_the_environment_is_given_back():
    everything = bound()
    lease = os.path.join("kubelet", "lease.feature")
    assert len(everything) == len(suite.scenarios())
    with suite.binding({lease}):
        assert os.environ[suite.FEATURE_FILES] == lease
        narrowed = bound()
    assert suite.FEATURE_FILES not in os.environ
    assert len(narrowed) == len([sc for sc in suite.scenarios() if sc.feature == lease]) >= 2
    assert narrowed < everything                    # the same test names, fewer of them
    with suite.binding(None):                       # no selection: every feature file
        assert bound() == everything
