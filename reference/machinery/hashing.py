"""Template hashes (Deployment pod-template-hash, DaemonSet controller-revision-hash).

Upstream hashes a spew dump of the template with FNV-32a and spells the decimal result with
``rand.SafeEncodeString``. kube32 cannot reproduce the dump byte for byte; it hashes the template's
canonical JSON instead, so the value is stable for equal templates (key order does not matter),
changes with the template, and uses upstream's alphabet ([4-9bcdf] for the digits).
"""

from __future__ import annotations

import json

SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"          # k8s.io/apimachinery/pkg/util/rand


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """Upstream's rand.SafeEncodeString: each character mapped into a vowel-free alphabet."""
    return "".join(SAFE_ALPHABET[ord(c) % len(SAFE_ALPHABET)] for c in text)


def template_hash(template: dict) -> str:
    canonical = json.dumps(template or {}, sort_keys=True, separators=(",", ":"))
    return safe_encode(str(fnv32a(canonical.encode("utf-8"))))
