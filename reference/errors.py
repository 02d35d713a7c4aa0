"""API errors as Kubernetes Status objects.

Each error knows its HTTP code and Status reason; the API's single error handler renders
``err.status()``. Messages follow upstream wording so kubectl prints what users expect.
"""

from __future__ import annotations


class ApiError(Exception):
    code = 500
    reason = "InternalError"

    def __init__(self, message: str, *, name: str = "", kind: str = "", group: str = "",
                 causes: list[dict] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: v for k, v in (("name", name), ("group", group), ("kind", kind)) if v}
        if causes:
            self.details["causes"] = causes

    def status(self) -> dict:
        body = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details:
            body["details"] = self.details
        return body


def _qualified(plural: str, group: str) -> str:
    return f"{plural}.{group}" if group else plural


class NotFound(ApiError):
    code, reason = 404, "NotFound"

    @classmethod
    def object(cls, plural: str, group: str, name: str) -> NotFound:
        return cls(f'{_qualified(plural, group)} "{name}" not found', name=name, kind=plural, group=group)


class AlreadyExists(ApiError):
    code, reason = 409, "AlreadyExists"

    @classmethod
    def object(cls, plural: str, group: str, name: str) -> AlreadyExists:
        return cls(f'{_qualified(plural, group)} "{name}" already exists', name=name, kind=plural, group=group)


class Conflict(ApiError):
    code, reason = 409, "Conflict"

    @classmethod
    def stale(cls, plural: str, group: str, name: str) -> Conflict:
        return cls(
            f'Operation cannot be fulfilled on {_qualified(plural, group)} "{name}": the object has been '
            "modified; please apply your changes to the latest version and try again",
            name=name, kind=plural, group=group,
        )


class Invalid(ApiError):
    """422: ``causes`` are ``{"field", "reason", "message"}`` dicts (FieldValueRequired, FieldValueInvalid …)."""

    code, reason = 422, "Invalid"

    @classmethod
    def fields(cls, kind: str, name: str, causes: list[dict], group: str = "") -> Invalid:
        summary = ", ".join(f"{c['field']}: {c['message']}" for c in causes)
        return cls(f'{kind}{"." + group if group else ""} "{name}" is invalid: {summary}',
                   name=name, kind=kind, group=group, causes=causes)


class BadRequest(ApiError):
    code, reason = 400, "BadRequest"


class Unauthorized(ApiError):
    code, reason = 401, "Unauthorized"


class Forbidden(ApiError):
    code, reason = 403, "Forbidden"


class MethodNotAllowed(ApiError):
    code, reason = 405, "MethodNotAllowed"


class Gone(ApiError):
    code, reason = 410, "Expired"


class Timeout(ApiError):
    """504, as upstream's NewTimeoutError (e.g. a watch from a resourceVersion the store has not reached)."""

    code, reason = 504, "Timeout"

    @classmethod
    def too_large_resource_version(cls, asked: int, current: int) -> Timeout:
        err = cls(f"Timeout: Too large resource version: {asked}, current: {current}",
                  causes=[{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}])
        err.details["retryAfterSeconds"] = 1
        return err


class RequestEntityTooLarge(ApiError):
    code, reason = 413, "RequestEntityTooLarge"


class TooManyRequests(ApiError):
    """429, as upstream's max-in-flight answers: the client should try again after a second."""

    code, reason = 429, "TooManyRequests"

    def __init__(self, message: str, **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.details["retryAfterSeconds"] = 1


class UnsupportedMediaType(ApiError):
    code, reason = 415, "UnsupportedMediaType"


class InternalError(ApiError):
    code, reason = 500, "InternalError"


class ServiceUnavailable(ApiError):
    code, reason = 503, "ServiceUnavailable"


def field_cause(field: str, message: str, reason: str = "FieldValueInvalid") -> dict:
    return {"reason": reason, "message": message, "field": field}
