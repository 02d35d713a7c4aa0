"""Faults of the reference API machinery (``reference.api``, ``reference.machinery``,
``reference.store``): table printers, field selectors, the scale subresource, generation and
resourceVersion bookkeeping. Each breaks one rule the features observe over HTTP."""

from __future__ import annotations

from kube32.reference.api import printers
from kube32.reference.api import writes as api_writes
from kube32.reference.machinery import selectors
from kube32.reference.store import store as store_module

_pod_status_reason = printers.pod_status_reason
_print_event = printers.print_event
_field_value = selectors.field_value
_scale_of = api_writes.scale_of
from tests.sensitivity.registry import fault  # noqa: E402


@fault("api-table-pod-ready-counts-every-container", breaks=["EXAMPLE-PENDING-POD-ROW"], level="reference")
def _(mp):
    def ready_is_total(pod):
        reason, _ready, total, restarts = _pod_status_reason(pod)
        return reason, total, total, restarts
    mp.setattr(printers, "pod_status_reason", ready_is_total)


@fault("api-table-pod-status-ignores-phase", breaks=["EXAMPLE-PENDING-POD-ROW"], level="reference")
def _(mp):
    def no_phase(pod):
        _reason, ready, total, restarts = _pod_status_reason(pod)
        return (pod.get("status") or {}).get("reason", ""), ready, total, restarts
    mp.setattr(printers, "pod_status_reason", no_phase)


@fault("api-table-event-object-keeps-kind-case", breaks=["EXAMPLE-EVENT-ROW"], level="reference")
def _(mp):
    def kind_as_is(ev, now):
        row = _print_event(ev, now)
        involved = ev.get("involvedObject") or {}
        row[3] = f"{involved.get('kind', '')}/{involved.get('name', '')}"
        return row
    mp.setattr(printers, "print_event", kind_as_is)


@fault("api-field-selector-nested-paths-unread", breaks=["EXAMPLE-EVENT-ROW"])
def _(mp):
    """involvedObject.name is never matched (only top-level fields are read)."""
    mp.setattr(selectors, "field_value",
               lambda obj, path: "" if path.startswith("involvedObject.") else _field_value(obj, path))


@fault("store-generation-bumps-on-every-write", breaks=["DEPLOY-GENERATION"])
def _(mp):
    """Labels and the controller's status writes move generation too."""
    mp.setattr(store_module, "generation_moves", lambda old, new: old != new)


@fault("api-scale-shows-status-replicas-as-spec", breaks=["DEPLOY-SCALE-SUBRESOURCE"])
def _(mp):
    def scale(obj):
        out = _scale_of(obj)
        out["spec"]["replicas"] = (obj.get("status") or {}).get("replicas", 0)
        return out
    mp.setattr(api_writes, "scale_of", scale)
