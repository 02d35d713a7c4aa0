"""Debian's chromium for the report tests (they render index.html in a real headless browser):
nothing to do when it is on PATH; installed with apt-get when this runs as root; otherwise one line
saying how, and exit status 1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def main() -> int:
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        return 0
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print("the report tests need Debian's chromium: sudo apt-get install -y chromium", file=sys.stderr)
        return 1
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env, stdout=subprocess.DEVNULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
