"""The suite as data is parsed once per feature file and process, and again when the file changes."""

from __future__ import annotations

import os
import textwrap

from kube32.conformance import suite

FEATURE = textwrap.dedent('''
    Feature: one scenario
      @clause-SCHED-BIND-ON-CREATE
      Scenario: {name}
        Given a kube32 control plane
    ''')


def test_a_changed_feature_file_is_read_again(tmp_path):
    path = tmp_path / "one.feature"
    path.write_text(FEATURE.format(name="first"))
    assert [s.name for s in suite.scenarios(tmp_path)] == ["first"]
    assert suite.scenarios(tmp_path)[0] is suite.scenarios(tmp_path)[0]       # not parsed again
    path.write_text(FEATURE.format(name="second, longer"))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))     # whatever the clock's grain
    assert [(s.name, s.clauses) for s in suite.scenarios(tmp_path)] == [("second, longer", ["SCHED-BIND-ON-CREATE"])]
