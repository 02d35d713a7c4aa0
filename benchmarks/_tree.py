"""Import ``kube32`` from another source tree (a ``--baseline`` commit's worktree), whatever its
layout: the runner's ``kube32/`` holding every package (older commits), or the top-level ``spec/``,
``features/``, ``reference/`` and ``hardware_harness/`` folders that setup.py maps into ``kube32``.
Putting the tree on ``sys.path`` alone is not enough for the second: this checkout's editable
install would answer ``kube32.reference`` from this checkout, and the "baseline" would run today's
code."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

FOLDERS = {"kube32.spec": "spec", "kube32.features": "features", "kube32.reference": "reference",
           "kube32.harness": "hardware_harness"}      # setup.py's FOLDERS, without the runner


def use(source: str | Path) -> None:
    """Make ``import kube32...`` read ``source``. Call before anything imports kube32."""
    source = Path(source)
    sys.path.insert(0, str(source))
    if not (source / "reference").is_dir():
        return                                       # the older layout: kube32/ holds everything
    import kube32

    modules = []
    for name, folder in FOLDERS.items():
        init = source / folder / "__init__.py"
        if not init.exists():
            continue
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(source / folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module                   # all registered first: they import each other
        setattr(kube32, name.split(".")[1], module)
        modules.append((spec, module))
    for spec, module in modules:
        spec.loader.exec_module(module)


def from_environment() -> None:
    """In a ``--baseline`` run (``_servers.beside`` or ``tree`` set ``KUBE32_TREE``), import that
    tree's code; otherwise this checkout's. Call before anything imports kube32."""
    if os.environ.get("KUBE32_TREE"):
        use(os.environ["KUBE32_TREE"])
