"""kube-apiserver's static token file: ``token,user,uid,"group1,group2"`` per line (CSV; the group
column is optional; blank lines are skipped), as ``--token-auth-file`` reads it."""

from __future__ import annotations

import csv
import io

from kube32.reference.auth.identity import User, authenticated


class TokenFileError(ValueError):
    """A token file that cannot be used: the message names the file, the line and the problem."""


def parse(text: str, where: str = "token file") -> dict[str, User]:
    users: dict[str, User] = {}
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) < 3:
            raise TokenFileError(f"{where}:{number}: expected token,user,uid[,\"group1,group2\"], "
                                 f"found {len(row)} column(s)")
        token, name, uid = (cell.strip() for cell in row[:3])
        if not token or not name:
            raise TokenFileError(f"{where}:{number}: the token and the user name must not be empty")
        if token in users:
            raise TokenFileError(f"{where}:{number}: this token is already given to user {users[token].name!r}")
        groups = [g.strip() for g in row[3].split(",") if g.strip()] if len(row) > 3 else []
        users[token] = authenticated(name, uid, groups)
    if not users:
        raise TokenFileError(f"{where}: no tokens")
    return users


def load(path: str) -> dict[str, User]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as exc:
        raise TokenFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TokenFileError(f"{path}: not UTF-8 text") from None
    return parse(text, path)
