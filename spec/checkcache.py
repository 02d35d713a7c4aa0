"""Compiled schema checks, kept across processes.

fastjsonschema turns a JSON Schema into Python source, and compiling that source costs 20-160 ms of
CPU per kind — paid again by every process that checks the kind: each ``serve`` start (a restart
too), each xdist worker, each run. ``check(schema)`` compiles a schema once per machine: the code
object is kept (marshal) in a cache folder under a name made of everything the code depends on — the
schema, the options, fastjsonschema's version and Python's bytecode format — so a changed schema, an
upgraded package or another interpreter never meets old code. An entry that cannot be read is
compiled again; a folder that cannot be written only means compiling every time.

The folder: ``$KUBE32_CACHE_DIR``, else ``$XDG_CACHE_HOME/kube32-conformance``, else
``~/.cache/kube32-conformance``; ``KUBE32_CACHE_DIR=off`` keeps nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import os
import re
import tempfile
from collections.abc import Callable
from types import CodeType

import fastjsonschema

OPTIONS = {"use_default": False}      # never write defaults into the object checked
ENV = "KUBE32_CACHE_DIR"


def folder() -> str | None:
    where = os.environ.get(ENV)
    if where == "off":
        return None
    if not where:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        where = os.path.join(home, "kube32-conformance")
    return os.path.join(where, "schema-checks")


def check(schema: dict) -> Callable[[object], object]:
    """fastjsonschema's check of ``schema``: returns the object, raises ``JsonSchemaException``."""
    name, code = _code(schema)
    namespace: dict = {}
    exec(code, namespace)       # the module fastjsonschema.compile_to_code writes: imports, patterns, functions
    return namespace[name]


def key(schema: dict) -> str:
    made_of = json.dumps([schema, OPTIONS, fastjsonschema.VERSION], sort_keys=True).encode()
    return hashlib.sha256(made_of + importlib.util.MAGIC_NUMBER).hexdigest()[:40]


def _code(schema: dict) -> tuple[str, CodeType]:
    where = folder()
    path = os.path.join(where, key(schema) + ".marshal") if where else None
    if path is not None:
        try:
            with open(path, "rb") as fh:
                name, code = marshal.load(fh)
            if isinstance(name, str) and isinstance(code, CodeType):
                return name, code
        except (OSError, EOFError, ValueError, TypeError):
            pass
    title = schema.get("$id", "schema") if isinstance(schema, dict) else "schema"
    source = fastjsonschema.compile_to_code(schema, **OPTIONS)      # rewrites the schema's $refs in place
    name = re.search(r"^def (\w+)\(", source, re.MULTILINE).group(1)   # the first function checks the root
    code = compile(source, f"<fastjsonschema: {title}>", "exec")
    if path is not None:
        _store(path, (name, code))
    return name, code


def _store(path: str, entry: tuple[str, CodeType]) -> None:
    """Written whole or not at all (another process may read it meanwhile)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".new-")
        try:
            with os.fdopen(fd, "wb") as fh:
                marshal.dump(entry, fh)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
