"""Who is asking: upstream's user.Info, reduced to what kube32 uses."""

from __future__ import annotations

import dataclasses

MASTERS = "system:masters"              # may do everything (upstream's superuser group)
NODES = "system:nodes"                  # kubelets
AUTHENTICATED = "system:authenticated"  # every authenticated user, added by the server
NODE_PREFIX = "system:node:"


@dataclasses.dataclass(frozen=True)
class User:
    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()

    @property
    def node_name(self) -> str | None:
        """The node a kubelet identity speaks for (``system:node:<name>`` in ``system:nodes``)."""
        if NODES in self.groups and self.name.startswith(NODE_PREFIX):
            return self.name[len(NODE_PREFIX):] or None
        return None

    @property
    def is_master(self) -> bool:
        return MASTERS in self.groups


def authenticated(name: str, uid: str = "", groups: tuple[str, ...] | list[str] = ()) -> User:
    groups = tuple(dict.fromkeys([*groups, AUTHENTICATED]))
    return User(name, uid, groups)


# With no authenticator configured (a development server on loopback) every request acts as this.
DEVELOPMENT = User("system:anonymous", groups=(MASTERS,))
