"""Rig file validation: strict keys, defaults, and errors that name the field path."""

from __future__ import annotations

import pytest
import yaml

from kube32.harness.errors import RigFileError
from kube32.harness.rig_file import DEFAULT_BOOTED, DEFAULT_KUBELET_READY, load_rig, parse_rig

CP = {"url": "rfc2217://hil:4000", "role": "control-plane", "api_url": {"pattern": r"listening on (http://\S+)"}}
NODE = {"url": "/dev/ttyUSB1", "role": "node", "node_name": "node-a"}


def rig(**boards):
    return {"boards": {"cp": CP, "node-a": NODE, **boards}}


def test_valid_file_gets_defaults(tmp_path):
    path = tmp_path / "rig.yaml"
    path.write_text(yaml.safe_dump(rig()))
    parsed = load_rig(path)
    assert parsed.profile == "hardware"
    specs = {s.name: s for s in parsed.board_specs()}
    assert specs["node-a"].port.baud == 115200 and specs["node-a"].reset == "rts"
    assert specs["node-a"].booted == DEFAULT_BOOTED and specs["node-a"].kubelet_ready == DEFAULT_KUBELET_READY
    assert specs["cp"].api_url_pattern == r"listening on (http://\S+)" and specs["cp"].kubelet_ready is None


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        (rig(**{"node-a": {**NODE, "role": "worker"}}), "boards.node-a.role: must be one of control-plane, node"),
        (rig(**{"node-a": {**NODE, "colour": True}}), "boards.node-a.colour: unknown key"),
        (rig(**{"node-a": {k: v for k, v in NODE.items() if k != "url"}}), "boards.node-a.url: required"),
        (rig(**{"node-a": {**NODE, "baud": 0}}), "boards.node-a.baud:"),
        (rig(**{"node-a": {**NODE, "reset": "dtr"}}), "boards.node-a.reset: must be one of rts, none"),
        (rig(**{"node-a": {**NODE, "booted": "("}}), "boards.node-a.booted: not a valid regular expression"),
        (rig(**{"node-a": {k: v for k, v in NODE.items() if k != "node_name"}}), "boards.node-a: a node board needs node_name"),
        (rig(cp={**CP, "api_url": {"pattern": "no group"}}), "boards.cp.api_url.pattern: needs a capturing group"),
        (rig(cp={**CP, "api_url": {}}), "boards.cp.api_url: give exactly one of fixed"),
        (rig(cp={k: v for k, v in CP.items() if k != "api_url"}), "boards.cp: the control-plane board needs api_url"),
        (rig(cp2=CP), "boards: exactly one board must have role: control-plane, found 2"),
        (rig(cp={**CP, "reset": "none"}), "boards.cp: a board with reset: none is never rebooted"),
        ({"boards": {"node-a": NODE}}, "found 0"),
        ({**rig(), "profile": "fast"}, "profile: must be one of hardware, simulator"),
        ({**rig(), "timeouts": {"boot": 5, "ready": 5, "flash": 1}}, "timeouts.flash: unknown key"),
        ({**rig(), "board": {}}, "board: unknown key"),
        (rig(**{"node-b": {**NODE}}), "node_name used by more than one board: node-a"),
        (rig(**{"node-a": {**NODE, "labgrid": {"place": "p"}}}), "boards.node-a: give url or labgrid, not both"),
        ({"labgrid": {"place": "p"}, "boards": {"cp": {k: v for k, v in CP.items() if k != "url"}}},
         "boards.cp.labgrid: needs coordinator and place"),
        ({"labgrid": {"coordinator": "h:1", "place": "p", "resource": "x"}, "boards": {"cp": CP}},
         "labgrid: resource and power name one board's resources"),
        (["not", "a", "mapping"], "(top level): expected a mapping"),
    ],
)
def test_errors_name_the_field(doc, problem):
    with pytest.raises(RigFileError) as info:
        parse_rig(doc, "rig.yaml")
    assert any(p.startswith(problem) or problem in p for p in info.value.problems), info.value.problems
    assert "rig.yaml" in str(info.value)


def test_labgrid_places_per_rig_and_per_board_merge():
    doc = {"labgrid": {"coordinator": "lab:20408", "place": "bench-1"},
           "boards": {"cp": {**{k: v for k, v in CP.items() if k != "url"}, "labgrid": {"resource": "cp-uart"}},
                      "node-a": {**{k: v for k, v in NODE.items() if k != "url"}, "labgrid": {"place": "node-a"}},
                      "node-b": {**NODE, "url": "/dev/ttyUSB2", "node_name": "node-b"}}}
    specs = {s.name: s for s in parse_rig(doc).board_specs()}
    assert specs["cp"].labgrid == ("lab:20408", "bench-1", "cp-uart", None)
    assert specs["node-a"].labgrid == ("lab:20408", "node-a", None, None)
    assert specs["node-b"].labgrid is None and specs["node-b"].port.url == "/dev/ttyUSB2"


def test_unreadable_and_bad_yaml(tmp_path):
    with pytest.raises(RigFileError, match="cannot read"):
        load_rig(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("boards: [\n")
    with pytest.raises(RigFileError, match="not valid YAML"):
        load_rig(bad)


def test_profile_set_names_known_profile_fields_only():
    base = {"boards": {"cp": {"url": "vboard://x", "role": "control-plane", "api_url": {"fixed": "http://h"}}}}
    ok = parse_rig({**base, "profile_set": {"lease_duration": 4}})
    assert ok.profile_set == {"lease_duration": 4.0}
    with pytest.raises(RigFileError, match=r"profile_set: unknown timing-profile field\(s\) lease_secs"):
        parse_rig({**base, "profile_set": {"lease_secs": 4}})
    with pytest.raises(RigFileError, match="profile_set: must be positive seconds: lease_duration"):
        parse_rig({**base, "profile_set": {"lease_duration": 0}})
