"""``run --target A --target B …``: the same selection against several implementations, one after
another, each into a report of its own under ``--report``, then one comparison page beside them
(``compare.html``, ``compare.json``), as Bowtie runs many implementations in one command.

Each run is a ``run`` of its own (a child process: pytest holds one run per process), with the
command line as given less its ``--target`` and ``--report``; its exit status is kept, and the
command exits with the worst of them (a target that could not be reached keeps its own status).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from kube32.conformance.reports import compare, html
from kube32.conformance.reports.collector import write_atomic

PREFIX = "kube32-conformance run"


def without(words: list[str], *flags: str) -> list[str]:
    """``words`` less every ``--flag VALUE`` and ``--flag=VALUE`` of ``flags``."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in flags:
            skip = True
            continue
        if any(word.startswith(f"{flag}=") for flag in flags):
            continue
        out.append(word)
    return out


def folder(index: int, target: str) -> str:
    """``1-reference``, ``2-http-127.0.0.1-6443``: a run's report directory under ``--report``."""
    return f"{index}-" + re.sub(r"[^A-Za-z0-9.]+", "-", target.split("://", 1)[-1]).strip("-")[:60]


def run(targets: list[str], report: str, words: list[str]) -> int:
    rest = without(words, "--target", "--report")
    base = Path(report)
    dirs, statuses = [], []
    for i, target in enumerate(targets, 1):
        where = base / folder(i, target)
        print(f"{PREFIX}: [{i}/{len(targets)}] {target} -> {where}", flush=True)
        done = subprocess.run([sys.executable, "-m", "kube32.conformance", *rest, "--target", target,
                               "--report", str(where)], env=os.environ.copy())
        statuses.append(done.returncode)
        if (where / "clauses.json").is_file():
            dirs.append(str(where))
        else:
            print(f"{PREFIX}: {target}: no report (exit status {done.returncode})", file=sys.stderr)
    if dirs:
        cmp = compare.compare(dirs, out_dir=str(base))
        write_atomic(str(base / "compare.json"), json.dumps(cmp, indent=2))
        write_atomic(str(base / "compare.html"), html.render_comparison(cmp))
        for line in compare.text_lines(cmp):
            print(line)
        print(f"comparison: {base / 'compare.html'}")
    return max(statuses, key=lambda s: (s != 0, s))
