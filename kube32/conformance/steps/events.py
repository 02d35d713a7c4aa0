"""Event steps: the events the document names, found by involvedObject (name, kind) and reason."""

from __future__ import annotations

from pytest_bdd import parsers, then

KIND_WORDS = {"pod": "Pod", "node": "Node", "Deployment": "Deployment", "DaemonSet": "DaemonSet",
              "Job": "Job"}


def events_about(k32, kind: str, name: str, reason: str) -> list[dict]:
    namespace = None if kind == "Node" else k32.ns
    fields = f"involvedObject.name={name},involvedObject.kind={kind},reason={reason}"
    path = "/api/v1/events" if namespace is None else f"/api/v1/namespaces/{namespace}/events"
    items = k32.api.call("GET", path, params={"fieldSelector": fields}).get("items", [])
    if kind == "Node":
        # Nodes are cluster-scoped: on a shared target an earlier scenario's node of the same name
        # left events too. Keep those about this node object (or naming no uid at all).
        node = k32.api.try_get("Node", name)
        uid = (node or {}).get("metadata", {}).get("uid")
        if uid:
            items = [e for e in items if (e.get("involvedObject") or {}).get("uid") in (None, "", uid)]
    return items


@then(parsers.re(r'a "(?P<etype>Normal|Warning)" event "(?P<reason>\w+)" about (?P<word>pod|node) '
                 r'"(?P<name>[^"]+)" says:'))
def event_says(k32, etype, reason, word, name, docstring):
    kind = KIND_WORDS[word]
    expected = docstring.strip()

    def check():
        events = events_about(k32, kind, name, reason)
        assert events, f"no {reason} event about {word} {name}"
        messages = [(e.get("type"), e.get("message")) for e in events]
        assert (etype, expected) in messages, f"the {reason} events say {messages}"
    k32.eventually(check, f'{etype} event {reason} about {word} "{name}"')


@then(parsers.re(r'there is an? "(?P<etype>Normal|Warning)" event "(?P<reason>\w+)" about (?P<word>pod|node) '
                 r'"(?P<name>[^"]+)"'))
def event_exists(k32, etype, reason, word, name):
    kind = KIND_WORDS[word]

    def check():
        events = events_about(k32, kind, name, reason)
        types = [e.get("type") for e in events]
        assert etype in types, f"{reason} events about {word} {name}: types {types or 'none'}"
    k32.eventually(check, f'{etype} event {reason} about {word} "{name}"')


@then(parsers.re(r'there is no "(?P<reason>\w+)" event about (?P<word>pod|node) "(?P<name>[^"]+)"'))
def no_event(k32, reason, word, name):
    kind = KIND_WORDS[word]

    def check():
        events = events_about(k32, kind, name, reason)
        assert not events, f"found {[e.get('message') for e in events]}"
    k32.consistently(check, f'no {reason} event about {word} "{name}"')
