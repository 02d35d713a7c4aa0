"""Schema checks kept across processes (spec/checkcache.py): a check loaded from the cache
judges as the freshly compiled one does, a changed schema never meets old code, and a damaged or
unwritable cache only means compiling again."""

from __future__ import annotations

import copy
import os
import subprocess
import sys

import fastjsonschema
import pytest

from kube32.spec import checkcache, validate

SCHEMA = {"type": "object", "properties": {"phase": {"enum": ["Pending", "Running"]},
                                           "at": {"type": "string", "pattern": "^[0-9]+Z$"}},
          "required": ["phase"]}
CASES = [({"phase": "Running", "at": "12Z"}, True), ({"phase": "Dancing"}, False), ({"at": "12Z"}, False),
         ({"phase": "Pending", "at": "12"}, False), (["phase"], False)]


def verdicts(check) -> list[bool]:
    out = []
    for obj, _ in CASES:
        try:
            check(copy.deepcopy(obj))
            out.append(True)
        except fastjsonschema.JsonSchemaException:
            out.append(False)
    return out


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(checkcache.ENV, str(tmp_path))
    return tmp_path / "schema-checks"


def test_a_cached_check_judges_as_a_fresh_one(cache):
    fresh = checkcache.check(copy.deepcopy(SCHEMA))
    assert verdicts(fresh) == [want for _, want in CASES]
    assert len(list(cache.iterdir())) == 1
    cached = checkcache.check(copy.deepcopy(SCHEMA))          # now from the file
    assert cached is not fresh and verdicts(cached) == verdicts(fresh)


def test_every_kind_from_the_cache_agrees_with_fastjsonschema(cache):
    for kind in sorted(validate._schemas()):
        checkcache.check(validate._fast_schema(kind))            # fills the cache
        from_cache = checkcache.check(validate._fast_schema(kind))
        compiled = fastjsonschema.compile(validate._fast_schema(kind), **checkcache.OPTIONS)
        assert from_cache.__code__.co_code == compiled.__code__.co_code, kind


def test_another_schema_gets_another_entry(cache):
    checkcache.check(copy.deepcopy(SCHEMA))
    other = copy.deepcopy(SCHEMA)
    other["properties"]["phase"]["enum"].append("Dancing")
    assert verdicts(checkcache.check(copy.deepcopy(other)))[1] is True
    assert len(list(cache.iterdir())) == 2 and checkcache.key(SCHEMA) != checkcache.key(other)


def test_a_damaged_entry_is_compiled_again(cache):
    checkcache.check(copy.deepcopy(SCHEMA))
    (entry,) = cache.iterdir()
    entry.write_bytes(b"\x00garbage")
    assert verdicts(checkcache.check(copy.deepcopy(SCHEMA))) == [want for _, want in CASES]
    assert entry.read_bytes() != b"\x00garbage"                 # and rewritten


def test_an_unwritable_or_disabled_cache_still_checks(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(checkcache.ENV, str(blocked))
    assert verdicts(checkcache.check(copy.deepcopy(SCHEMA))) == [want for _, want in CASES]
    monkeypatch.setenv(checkcache.ENV, "off")
    assert checkcache.folder() is None
    assert verdicts(checkcache.check(copy.deepcopy(SCHEMA))) == [want for _, want in CASES]


def test_a_process_that_only_validates_valid_objects_never_imports_jsonschema(cache):
    code = ("import sys; from kube32.spec import validate; "
            "assert validate.validate({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': 'a'}}) == []; "
            "print('jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, checkcache.ENV: str(cache.parent)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
