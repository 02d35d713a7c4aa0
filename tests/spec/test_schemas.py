"""The committed JSON Schemas are exactly what the models export (drift check)."""

from __future__ import annotations

import difflib
import json

from kube32.spec.models import KINDS, export, schema_name


def test_committed_schemas_match_a_fresh_export():
    fresh = export.rendered()
    problems = []
    for name, text in fresh.items():
        path = export.SCHEMA_DIR / name
        if not path.is_file():
            problems.append(f"{path}: missing")
            continue
        committed = path.read_text()
        if committed != text:
            diff = "".join(difflib.unified_diff(
                committed.splitlines(keepends=True), text.splitlines(keepends=True),
                fromfile=f"{path} (committed)", tofile=f"{path} (fresh export)", n=2))
            problems.append(diff[:3000])
    for path in sorted(export.SCHEMA_DIR.glob("*.json")):
        if path.name not in fresh:
            problems.append(f"{path}: not produced by the models (delete it)")
    assert not problems, (
        "spec/schemas drifted from spec/models; run `python -m spec.models.export`:\n" + "\n".join(problems)
    )


def test_stale_lists_changed_missing_and_extra_files(tmp_path):
    export.write(tmp_path)
    assert export.stale(tmp_path) == []
    (tmp_path / "pod.json").write_text("{}\n")
    (tmp_path / "node.json").unlink()
    (tmp_path / "bogus.json").write_text("{}\n")
    assert [p.name for p in export.stale(tmp_path)] == ["bogus.json", "node.json", "pod.json"]
    assert export.main(["--check", "--dir", str(tmp_path)]) == 1
    export.write(tmp_path)
    assert export.stale(tmp_path) == []
    assert export.main(["--check", "--dir", str(tmp_path)]) == 0


def test_one_schema_per_kind_plus_status():
    names = {f"{schema_name(k)}.json" for k in KINDS}
    assert "status.json" in names
    for kind in ("Pod", "Node", "Namespace", "Service", "Event", "Endpoints", "EndpointSlice", "Lease",
                 "Deployment", "DaemonSet", "Job", "Scale", "PodList", "NodeList", "EventList"):
        assert f"{kind.lower()}.json" in names


def test_schemas_are_draft_2020_12_with_gvk_and_open_objects():
    for name, text in export.rendered().items():
        schema = json.loads(text)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        gvk = schema["x-kubernetes-group-version-kind"]
        assert schema_name(gvk["kind"]) + ".json" == name
        # extra fields are allowed everywhere: real servers add fields
        assert schema["additionalProperties"] is True, name
        for def_name, sub in schema.get("$defs", {}).items():
            if sub.get("type") == "object":
                assert sub.get("additionalProperties") is True, (name, def_name)


def test_camel_case_names():
    pod = json.loads(export.render("Pod"))
    status = pod["$defs"]["PodStatus"]["properties"]
    assert {"podIP", "podIPs", "hostIP", "containerStatuses"} <= set(status)
    meta = pod["$defs"]["ObjectMeta"]["properties"]
    assert {"resourceVersion", "creationTimestamp", "deletionGracePeriodSeconds", "ownerReferences",
            "generateName"} <= set(meta)
    lease = json.loads(export.render("Lease"))
    assert {"holderIdentity", "leaseDurationSeconds", "renewTime", "acquireTime", "leaseTransitions"} <= set(
        lease["$defs"]["LeaseSpec"]["properties"])
