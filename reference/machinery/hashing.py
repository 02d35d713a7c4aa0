"""Template hashes (Deployment pod-template-hash, DaemonSet controller-revision-hash).

Upstream hashes a spew dump of the template with FNV-32a and spells the decimal result with
``rand.SafeEncodeString``. kube32 cannot reproduce the dump byte for byte; it hashes the template's
canonical JSON instead, so the value is stable for equal templates (key order does not matter),
changes with the template, and uses upstream's alphabet ([4-9bcdf] for the digits).
"""

from __future__ import annotations

import json
import secrets

from kube32.spec import constants

ALPHABET = constants.SAFE_ENCODE_ALPHABET


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str | bytes) -> str:
    """Upstream's rand.SafeEncodeString: each character (or byte) mapped into a vowel-free alphabet."""
    codes = text if isinstance(text, bytes) else map(ord, text)
    return "".join(ALPHABET[code % len(ALPHABET)] for code in codes)


def random_suffix() -> str:
    """A generateName suffix: upstream's rand.String of that alphabet."""
    return "".join(secrets.choice(ALPHABET) for _ in range(constants.GENERATED_SUFFIX_LENGTH))


def template_hash(template: dict) -> str:
    canonical = json.dumps(template or {}, sort_keys=True, separators=(",", ":"))
    return safe_encode(str(fnv32a(canonical.encode("utf-8"))))
