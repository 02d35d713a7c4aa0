"""Server-side ``Table`` output so ``kubectl get`` prints the familiar columns.

A printer per kind returns (column definitions, cells for one object). Kinds without a printer get
NAME and AGE. Rows carry ``object`` as PartialObjectMetadata (``includeObject=Metadata``, the
default), the full object (``Object``) or nothing (``None``).
"""

from __future__ import annotations

from collections.abc import Callable

from flask import jsonify, request

from kube32.spec import timefmt

Column = dict
Printer = Callable[[dict, float], list]

TABLE_MEDIA_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def col(name: str, type_: str = "string", priority: int = 0, fmt: str = "", description: str = "") -> Column:
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


def age(obj: dict, now: float) -> str:
    ts = obj.get("metadata", {}).get("creationTimestamp")
    return timefmt.human_duration(now - timefmt.parse(ts)) if ts else "<unknown>"


DEFAULT_COLUMNS = [col("Name", fmt="name"), col("Age")]


def _default(obj: dict, now: float) -> list:
    return [obj["metadata"].get("name", ""), age(obj, now)]


# kind -> (columns, printer); filled by reference.api.printers
PRINTERS: dict[str, tuple[list[Column], Printer]] = {}


def asks_for_table(accept: str) -> bool:
    """Whether an Accept header asks for a Table (every other Accept is answered in JSON)."""
    return "as=Table" in accept


def wants_table() -> bool:
    return asks_for_table(request.headers.get("Accept", ""))


def include_object() -> str:
    """``includeObject``: Metadata (default), Object or None."""
    return request.args.get("includeObject", "Metadata")


def _row_object(obj: dict, mode: str) -> dict | None:
    if mode == "None":
        return None
    if mode == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata", {})}


def table(cp, resource, items: list[dict], resource_version: str | None = None, columns: bool = True,
          mode: str | None = None) -> dict:
    """``mode``: includeObject (default: the request's)."""
    cols, printer = PRINTERS.get(resource.kind, (DEFAULT_COLUMNS, _default))
    now = cp.clock.now()
    mode = mode or include_object()
    rows = []
    for obj in items:
        row = {"cells": printer(obj, now)}
        ro = _row_object(obj, mode)
        if ro is not None:
            row["object"] = ro
        rows.append(row)
    body = {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": resource_version or str(cp.store.resource_version)}, "rows": rows}
    if columns:
        body["columnDefinitions"] = cols
    return body


def response(cp, resource, items: list[dict], single: bool, resource_version: str | None = None):
    resp = jsonify(table(cp, resource, items, resource_version))
    resp.headers["Content-Type"] = TABLE_MEDIA_TYPE
    return resp
