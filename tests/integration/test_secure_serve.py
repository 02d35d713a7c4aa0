"""The reference behind real TLS and authentication: `serve --tls-self-signed DIR --token-auth-file`,
then kubectl 1.27 / 1.33, the official client and the conformance runner over https, each with the
credentials the server wrote; client certificates through the authoriser; the safe default."""

from __future__ import annotations

import subprocess
import sys

from integration_helpers import free_port

TOKENS = 'admin-token,admin,1,"system:masters"\nviewer-token,viewer,2\n'
NODES = ("node-a", "node-b", "node-c")   # node identities made for the fake kubelets


def test_an_open_address_without_authentication_is_refused():
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "serve", "--listen", f"0.0.0.0:{free_port()}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refusing to serve 0.0.0.0 with no authenticator" in lines[0]


def test_tls_flags_that_do_not_go_together_are_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kube32.conformance", "serve", "--client-ca-file", "x.crt"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--client-ca-file needs TLS" in done.stderr


