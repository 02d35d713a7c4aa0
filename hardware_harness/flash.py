"""Flashing through esptool as a subprocess (``python -m esptool ... write_flash``). Never reimplemented."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import FlashError

INSTALL_HINT = "pip install kube32-conformance[flash]"


def esptool_available() -> bool:
    return importlib.util.find_spec("esptool") is not None


def build_command(
    url: str,
    image: str | Path | Iterable[tuple[int, str | Path]],
    *,
    address: int = 0x0,
    chip: str = "esp32",
    baud: int = 460800,
    extra_args: Sequence[str] = (),
    connect_attempts: int | None = None,
) -> list[str]:
    """The esptool command line; ``image`` is one file (at ``address``) or ``[(address, file), ...]``."""
    if isinstance(image, (str, Path)):
        pairs = [(address, image)]
    else:
        pairs = list(image)
    cmd = [sys.executable, "-m", "esptool", "--chip", chip, "--port", url, "--baud", str(baud)]
    if connect_attempts is not None:
        cmd += ["--connect-attempts", str(connect_attempts)]
    cmd += ["write_flash", *extra_args]
    for addr, path in pairs:
        cmd += [hex(addr), str(path)]
    return cmd


def write_flash(url: str, image, *, address: int = 0x0, timeout: float = 300.0, **kwargs) -> str:
    """Run esptool; return its output. Raises ``FlashError`` when esptool is missing or fails."""
    if not esptool_available():
        raise FlashError(f"flashing needs esptool, which is not installed; run: {INSTALL_HINT}")
    cmd = build_command(url, image, address=address, **kwargs)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise FlashError(f"esptool did not finish within {timeout:g} s: {' '.join(cmd)}") from exc
    if proc.returncode != 0:
        said = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
        why = next((line for line in reversed(said) if "rror" in line or "ailed" in line), said[-1] if said else "")
        raise FlashError(f"esptool exited with {proc.returncode} (expected 0): {why} (ran: {' '.join(cmd)})")
    return proc.stdout
