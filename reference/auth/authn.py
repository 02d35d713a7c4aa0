"""Authentication: bearer tokens from the static token file, and TLS client certificates.

The serving layer verifies a client certificate against ``--client-ca-file`` during the TLS
handshake and puts it in the WSGI environ (``kube32.peer_cert``, ``ssl.SSLSocket.getpeercert()``
form); here its subject's CN becomes the user and every O a group, as upstream's x509
authenticator does.
"""

from __future__ import annotations

import dataclasses

from kube32.reference.auth.identity import User, authenticated

PEER_CERT = "kube32.peer_cert"      # set by the serving layer (reference.serving.http)


class Unauthorized(Exception):
    """Credentials were presented and are wrong (or required and absent)."""


@dataclasses.dataclass
class Authenticator:
    tokens: dict[str, User] | None = None
    client_certificates: bool = False

    @property
    def configured(self) -> bool:
        return self.tokens is not None or self.client_certificates

    def authenticate(self, environ: dict) -> User | None:
        """The requesting user; None for an anonymous request. Raises Unauthorized for a bad token."""
        header = environ.get("HTTP_AUTHORIZATION", "")
        scheme, _, credential = header.partition(" ")
        if scheme.lower() == "bearer" and self.tokens is not None:
            user = self.tokens.get(credential.strip())
            if user is None:
                raise Unauthorized("invalid bearer token")
            return user
        if header:
            raise Unauthorized(f"unsupported authorization scheme {scheme!r}")
        cert = environ.get(PEER_CERT)
        if cert and self.client_certificates:
            return from_subject(cert.get("subject") or ())
        return None


def from_subject(subject) -> User:
    """CN -> user name, O -> groups (``getpeercert()['subject']`` form)."""
    cn, groups = "", []
    for rdn in subject:
        for key, value in rdn:
            if key == "commonName":
                cn = value
            elif key == "organizationName":
                groups.append(value)
    if not cn:
        raise Unauthorized("the client certificate has no common name")
    return authenticated(cn, "", groups)
