"""Event steps: the events the document names, found by involvedObject (name, kind) and reason.

The document names event reasons, never their messages (except the FailedScheduling format), so an
exact message or type is checked at reference level only (see levels.py and _fit.py).
"""

from __future__ import annotations

from pytest_bdd import parsers, then

from kube32.conformance.levels import DOCUMENT, REFERENCE
from kube32.conformance.steps import _fit, _judges

# Event types the document shows (its kubectl example); the others are upstream's, so our reading.
DOCUMENTED_TYPES = {"FailedScheduling": DOCUMENT}
# Event reasons the document names; an event it never names (Scheduled, SuccessfulCreate …) is
# upstream's, so whether there is one is our reading.
DOCUMENTED_EVENTS = frozenset({"FailedScheduling", "NodeNotReady", "NodeReady", "Evicted"})


def _level(reason: str) -> str:
    return DOCUMENT if reason in DOCUMENTED_EVENTS else REFERENCE
KIND_WORDS = {"pod": "Pod", "node": "Node", "Deployment": "Deployment", "DaemonSet": "DaemonSet",
              "Job": "Job"}


def events_about(k32, kind: str, name: str, reason: str, left_out: list | None = None) -> list[dict]:
    """Events with that reason about that object, in whichever namespace the target keeps them (the
    document does not say; upstream's, the object's own, is checked by ``kept_beside``). ``left_out``
    collects node events set aside as another node's (so a failing step can say what it saw)."""
    fields = f"involvedObject.name={name},involvedObject.kind={kind},reason={reason}"
    if kind != "Node":
        fields += f",involvedObject.namespace={k32.ns}"
    items = k32.api.call("GET", "/api/v1/events", params={"fieldSelector": fields}).get("items", [])
    if kind == "Node":
        items = _about_this_node(items, k32.api.try_get("Node", name) or {}, left_out)
    return items


def kept_beside(k32, events: list[dict], reason: str) -> None:
    """Our reading (reference level): a namespaced object's events live in its own namespace."""
    elsewhere = sorted({(e.get("metadata") or {}).get("namespace") for e in events} - {k32.ns})
    with k32.reference(_judges.EVENTS.get(reason)):
        assert not elsewhere, f"the {reason} events are kept in namespace {elsewhere}, not the object's ({k32.ns})"


def _about_this_node(events: list[dict], node: dict, left_out: list | None) -> list[dict]:
    """Nodes are cluster-scoped: on a shared target an earlier node of the same name left events
    too. The document does not say what involvedObject.uid holds, so an event is set aside only when
    it names another uid AND is older than this node (whole seconds)."""
    uid = node.get("metadata", {}).get("uid")
    created = node.get("metadata", {}).get("creationTimestamp") or ""
    kept = []
    for event in events:
        other_uid = (event.get("involvedObject") or {}).get("uid") not in (None, "", uid)
        when = event.get("lastTimestamp") or event.get("eventTime") or event.get("firstTimestamp") or ""
        if uid and other_uid and created and when and _seconds(when) < _seconds(created):
            if left_out is not None:
                left_out.append(event)
            continue
        kept.append(event)
    return kept


def _seconds(stamp: str) -> str:
    return stamp[:19]   # RFC 3339 up to whole seconds: compares as text


def describe_left_out(left_out: list[dict]) -> str:
    if not left_out:
        return ""
    uids = sorted({(e.get("involvedObject") or {}).get("uid") or "" for e in left_out})
    return f" ({len(left_out)} older event(s) about an earlier node of that name set aside: uids {uids})"


@then(parsers.re(r'a "(?P<etype>Normal|Warning)" event "(?P<reason>\w+)" about (?P<word>pod|node) '
                 r'"(?P<name>[^"]+)" says(?P<quoted> word for word)?:'))
def event_says(k32, etype, reason, word, name, docstring, quoted):
    """Document level: the event exists (a FailedScheduling one a Warning whose message agrees in
    the documented reasons, _fit.py); reference level: its type and exact message. "says word for
    word" is for a message the document itself quotes: exact at document level."""
    kind = KIND_WORDS[word]
    expected = docstring.strip()
    fit = reason == "FailedScheduling" and _fit.is_fit_message(expected)

    def check():
        left_out: list = []
        events = events_about(k32, kind, name, reason, left_out)
        assert events, f"no {reason} event about {word} {name}{describe_left_out(left_out)}"
        found[:] = events
        messages = [(e.get("type"), e.get("message")) for e in events]
        if fit:
            assert any(t == etype and _fit.agrees(m, expected) for t, m in messages), \
                "; ".join(_fit.explain(m, expected) for _, m in messages)
        return messages
    messages, found = None, []
    with k32.judging(_judges.EVENTS.get(reason), level=_level(reason)):
        messages = k32.eventually(check, f'{etype} event {reason} about {word} "{name}"')
    if messages is None:
        return
    if kind != "Node":
        kept_beside(k32, found, reason)
    with k32.judging(_judges.EVENTS.get(reason), level=DOCUMENT if quoted else REFERENCE):
        assert (etype, expected) in messages, f"the {reason} events say {messages}, expected {(etype, expected)}"


@then(parsers.re(r'there is an? "(?P<etype>Normal|Warning)" event "(?P<reason>\w+)" about (?P<word>pod|node) '
                 r'"(?P<name>[^"]+)"'))
def event_exists(k32, etype, reason, word, name):
    kind = KIND_WORDS[word]

    def check():
        left_out: list = []
        events = events_about(k32, kind, name, reason, left_out)
        assert events, f"there is no {reason} event about {word} {name}{describe_left_out(left_out)}"
        found[:] = events
        return [e.get("type") for e in events]
    types, found = None, []
    with k32.judging(_judges.EVENTS.get(reason), level=_level(reason)):
        types = k32.eventually(check, f'{reason} event about {word} "{name}"')
    if types is not None and kind != "Node":
        kept_beside(k32, found, reason)
    if types is not None:
        with k32.judging(_judges.EVENTS.get(reason), level=DOCUMENTED_TYPES.get(reason, REFERENCE)):
            assert etype in types, f"the {reason} events about {word} {name} have types {types}, not {etype}"


@then(parsers.re(r'there is no "(?P<reason>\w+)" event about (?P<word>pod|node) "(?P<name>[^"]+)"'))
def no_event(k32, reason, word, name):
    kind = KIND_WORDS[word]

    def check():
        events = events_about(k32, kind, name, reason)
        assert not events, f"found {[e.get('message') for e in events]}"
    with k32.judging(_judges.EVENTS.get(reason), level=_level(reason)):
        k32.consistently(check, f'no {reason} event about {word} "{name}"')
