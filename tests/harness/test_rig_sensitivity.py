"""Sensitivity of the real-kubelet clauses, proven on a virtual rig (they cannot run on the in-process
reference, so they are not in tests/sensitivity): each fault patches the virtual node firmware, the
suite runs the clause's scenarios against the rig, and every named clause must come out FAILED (not
error, not passed).

Faults (name -> clauses it breaks):
- kubelet-renews-20-percent-late       -> KUBELET-LEASE-RENEWAL  (renews every 6 s instead of 5 s)
- kubelet-renews-twice-as-often        -> KUBELET-LEASE-RENEWAL  (every 2.5 s: the other side of "every 5 s")
- kubelet-declares-default-duration    -> KUBELET-LEASE-RENEWAL  (leaseDurationSeconds 40 whatever the profile)
- kubelet-forgets-running-pods         -> KUBELET-REPORTS-INCLUDE-RUNNING-PODS  (reports capacity)
- kubelet-admits-any-hardware          -> KUBELET-FIREWALL-HARDWARE  (no hardware.kube32.io check)
- kubelet-admits-impossible-pin        -> KUBELET-FIREWALL-GPIO-PIN  (no pin check)
- kubelet-refuses-every-pin            -> KUBELET-FIREWALL-GPIO-PIN  (a free valid pin is refused)

Fair variants (another reasonable kubelet; its clauses must still pass at document level and, to show
the variant is live, fail at reference level):
- kubelet-holds-its-lease-as-another   -> KUBELET-LEASE-RENEWAL  (holderIdentity is not the node's name:
  the document does not say who holds the Lease)
"""

from __future__ import annotations

import pytest

from kube32.harness.virtual import node_firmware
from tests.harness.rigrun import run_suite, short_rig


def _kubelets(vrig):
    return [b.firmware for b in vrig.boards.values() if isinstance(b.firmware, node_firmware.NodeFirmware)]


def renews_late(mp, vrig):
    for fw in _kubelets(vrig):
        mp.setattr(fw, "lease_interval", fw.lease_interval * 6 / 5)


def renews_twice_as_often(mp, vrig):
    for fw in _kubelets(vrig):
        mp.setattr(fw, "lease_interval", fw.lease_interval / 2)


def holds_its_lease_as_another(mp, vrig):
    for fw in _kubelets(vrig):
        real = fw._call

        def call(method, path, body=None, ok=(200, 201), real=real, fw=fw):
            if isinstance(body, dict) and body.get("kind") == "Lease":
                body = {**body, "spec": {**body["spec"], "holderIdentity": f"kubelet/{fw.node_name}"}}
            return real(method, path, body, ok)
        mp.setattr(fw, "_call", call)


def declares_default_duration(mp, vrig):
    for fw in _kubelets(vrig):
        mp.setattr(fw, "lease_duration", 40)


def forgets_running_pods(mp, vrig):
    mp.setattr(node_firmware.NodeFirmware, "running_pods", lambda self, pods=None: [])


def admits_any_hardware(mp, vrig):
    real = node_firmware.firewall_refusal

    def refusal(fw, pod, running):
        why = real(fw, pod, running)
        return None if why and "hardware.kube32.io/" in why else why
    mp.setattr(node_firmware, "firewall_refusal", refusal)


def admits_impossible_pin(mp, vrig):
    real = node_firmware.firewall_refusal

    def refusal(fw, pod, running):
        why = real(fw, pod, running)
        return None if why and "esp32.io/gpio-" in why else why
    mp.setattr(node_firmware, "firewall_refusal", refusal)


def refuses_every_pin(mp, vrig):
    real = node_firmware.firewall_refusal

    def refusal(fw, pod, running):
        pins = node_firmware.pin_claims(pod)
        if pins:
            return f"Pod was rejected: pin claims are not supported (esp32.io/gpio-{min(pins)})"
        return real(fw, pod, running)
    mp.setattr(node_firmware, "firewall_refusal", refusal)


FAULTS = {
    "kubelet-renews-20-percent-late": (renews_late, ["KUBELET-LEASE-RENEWAL"]),
    "kubelet-renews-twice-as-often": (renews_twice_as_often, ["KUBELET-LEASE-RENEWAL"]),
    "kubelet-declares-default-duration": (declares_default_duration, ["KUBELET-LEASE-RENEWAL"]),
    "kubelet-forgets-running-pods": (forgets_running_pods, ["KUBELET-REPORTS-INCLUDE-RUNNING-PODS"]),
    "kubelet-admits-any-hardware": (admits_any_hardware, ["KUBELET-FIREWALL-HARDWARE"]),
    "kubelet-admits-impossible-pin": (admits_impossible_pin, ["KUBELET-FIREWALL-GPIO-PIN"]),
    "kubelet-refuses-every-pin": (refuses_every_pin, ["KUBELET-FIREWALL-GPIO-PIN"]),
}


FAIR = {
    "kubelet-holds-its-lease-as-another": (holds_its_lease_as_another, ["KUBELET-LEASE-RENEWAL"]),
}


@pytest.fixture(scope="module")
def vrig(tmp_path_factory):
    with short_rig(tmp_path_factory.mktemp("rigsens") / "rig") as vr:
        yield vr


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_fails_its_clauses_on_the_rig(fault, vrig, monkeypatch, tmp_path):
    patch, clauses = FAULTS[fault]
    patch(monkeypatch, vrig)
    selection = [arg for c in clauses for arg in ("--clause", c)]
    run = run_suite(vrig.rig_path, tmp_path / "report", *selection)
    status = {c["id"]: c for c in run.doc.get("clauses", [])}
    assert status, f"no clauses.json:\n{run.output[-3000:]}"
    for clause in clauses:
        got = status[clause]
        assert got["status"] == "failed", (
            f"fault {fault}: clause {clause} is {got['status']}, expected failed; scenarios: "
            f"{[(s['name'], s['status'], s.get('message', '')[:200]) for s in got['scenarios']]}")


@pytest.mark.parametrize("variant", sorted(FAIR))
def test_fair_variant_passes_its_clauses_at_document_level_on_the_rig(variant, vrig, monkeypatch, tmp_path):
    patch, clauses = FAIR[variant]
    patch(monkeypatch, vrig)
    run = run_suite(vrig.rig_path, tmp_path / "report", *[arg for c in clauses for arg in ("--clause", c)])
    status = {c["id"]: c for c in run.doc.get("clauses", [])}
    assert status, f"no clauses.json:\n{run.output[-3000:]}"
    for clause in clauses:
        verdicts = status[clause]["verdicts"]
        assert verdicts == {"document": "passed", "reference": "failed"}, (
            f"fair variant {variant}: clause {clause} is {verdicts}; scenarios: "
            f"{[(s['name'], s['status'], s.get('message', '')[:200]) for s in status[clause]['scenarios']]}")
