"""Backtrace decoding the way idf.py monitor does it: esp-idf-panic-decoder + the toolchain's addr2line.

``BacktraceDecoder(elf, toolchain_prefix)`` turns ``Backtrace: 0x400d1234:0x3ffb0000 ...`` into
``0x400d1234: app_main at main/main.c:42`` lines. The prefix is the toolchain's
(``xtensa-esp32-elf-``, ``xtensa-esp32s3-elf-``, ``riscv32-esp-elf-``); an empty prefix uses the
host's ``addr2line`` (how the tests decode a host ELF without an Xtensa toolchain).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .errors import BadInput

DEFAULT_TOOLCHAIN_PREFIX = "xtensa-esp32-elf-"
INSTALL_HINT = "pip install kube32-conformance[lab]"


class DecoderError(BadInput):
    """The ELF file or the toolchain's addr2line is missing."""


class BacktraceDecoder:
    def __init__(self, elf: str | Path, toolchain_prefix: str = DEFAULT_TOOLCHAIN_PREFIX) -> None:
        try:
            from esp_idf_panic_decoder.pc_address_decoder import PcAddressDecoder
        except ImportError as exc:
            raise DecoderError(f"backtrace decoding needs esp-idf-panic-decoder; run: {INSTALL_HINT}") from exc
        self.elf = Path(elf)
        if not self.elf.is_file():
            raise DecoderError(f"ELF file {self.elf} does not exist")
        tool = f"{toolchain_prefix}addr2line"
        if shutil.which(tool) is None:
            raise DecoderError(f"{tool} is not on PATH (install the toolchain or give the right prefix)")
        self.toolchain_prefix = toolchain_prefix
        self._decoder = PcAddressDecoder(toolchain_prefix, str(self.elf))

    def decode(self, text: str) -> list[str]:
        """``addr: func at file:line`` for every executable address of ``text`` (inlined callers
        follow as ``  (inlined by) ...``); empty when nothing in it is code of this ELF."""
        out = []
        for addr, trace in self._decoder.translate_addresses(text):
            if not trace:
                out.append(f"{addr}: (unknown)")
                continue
            for n, loc in enumerate(trace):
                where = f"{loc.func} in ROM" if loc.path == "ROM" else \
                    f"{loc.func} at {loc.path}" + (f":{loc.line}" if loc.line else "")
                out.append(f"{addr}: {where}" if n == 0 else f"  (inlined by) {where}")
        return out


def parse_elf_args(items: list[str] | None) -> dict[str, str]:
    """``["node-a=build/kube32.elf", ...]`` -> board -> path; a one-line error for a malformed item."""
    out: dict[str, str] = {}
    for item in items or []:
        board, sep, path = item.partition("=")
        if not sep or not board or not path:
            raise DecoderError(f"--elf expects BOARD=PATH, got {item!r}")
        out[board] = path
    return out
