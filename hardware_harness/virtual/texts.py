"""Console texts a real ESP32 prints: ROM banner, second-stage boot log, panic and abort blocks."""

from __future__ import annotations

import random

NL = "\r\n"
COLOURS = {"E": "\x1b[0;31m", "W": "\x1b[0;33m", "I": "\x1b[0;32m"}
RESET_COLOUR = "\x1b[0m"
ROM_DATE = "ets Jun  8 2016 00:22:57"
ELF_SHA = "3f1e0f5ad4c0b1b2"


def log_line(level: str, ms: int | None, tag: str, message: str, colour: bool = True) -> str:
    """``[colour]L (ms) tag: message[reset]\\r\\n`` exactly as esp_log_format() prints it."""
    stamp = f"({ms}) " if ms is not None else ""
    text = f"{level} {stamp}{tag}: {message}"
    if colour and level in COLOURS:
        text = f"{COLOURS[level]}{text}{RESET_COLOUR}"
    return text + NL


def rom_banner(reason: tuple[int, str], colour: bool = True) -> str:
    code, name = reason
    lines = [
        ROM_DATE,
        "",
        f"rst:0x{code:x} ({name}),boot:0x13 (SPI_FAST_FLASH_BOOT)",
        "configsip: 0, SPIWP:0xee",
        "clk_drv:0x00,q_drv:0x00,d_drv:0x00,cs0_drv:0x00,hd_drv:0x00,wp_drv:0x00",
        "mode:DIO, clock div:2",
        "load:0x3fff0030,len:7104",
        "load:0x40078000,len:15576",
        "load:0x40080400,len:4",
        "entry 0x40080764",
    ]
    out = NL.join(lines) + NL
    out += log_line("I", 31, "boot", "ESP-IDF v5.2.1 2nd stage bootloader", colour)
    out += log_line("I", 40, "boot", "Loaded app from partition at offset 0x10000", colour)
    return out


def app_start(colour: bool = True, project: str = "kube32") -> str:
    """What ESP-IDF's startup code prints before app_main()."""
    out = log_line("I", 245, "cpu_start", "Pro cpu start user code", colour)
    out += log_line("I", 262, "app_init", f"Project name:     {project}", colour)
    out += log_line("I", 301, "main_task", "Calling app_main()", colour)
    return out


def download_banner(reason: tuple[int, str]) -> str:
    code, name = reason
    return NL.join(
        [ROM_DATE, "", f"rst:0x{code:x} ({name}),boot:0x3 (DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2))", "waiting for download"]
    ) + NL


def _backtrace(rnd: random.Random, n: int = 4) -> str:
    frames = [f"0x400{rnd.randrange(0xD0000, 0xDFFFF):05x}:0x3ffb{rnd.randrange(0x4000, 0x5FFF):04x}" for _ in range(n)]
    return "Backtrace: " + " ".join(frames)


def panic_block(reason: str = "LoadProhibited", core: int = 0, seed: int = 1) -> str:
    """A Guru Meditation block (two-space padded core number, as panic_print_dec prints it)."""
    rnd = random.Random(seed)
    lines = [
        f"Guru Meditation Error: Core {core:2d} panic'ed ({reason}). Exception was unhandled.",
        "",
        f"Core {core:2d} register dump:",
        "PC      : 0x400d1b2c  PS      : 0x00060830  A0      : 0x800d2b4e  A1      : 0x3ffb5010  ",
        "A2      : 0x00000000  A3      : 0x3ffb5050  A4      : 0x00000000  A5      : 0x00000000  ",
        "EXCVADDR: 0x00000000  LBEG    : 0x4000c2e0  LEND    : 0x4000c2f6  LCOUNT  : 0xffffffff  ",
        "",
        "",
        _backtrace(rnd),
        "",
        "",
        "",
        "",
        f"ELF file SHA256: {ELF_SHA}",
        "",
        "Rebooting...",
    ]
    return NL.join(lines) + NL


def abort_block(where: str = "", core: int = 0, seed: int = 2) -> str:
    """abort(): current ESP-IDF prints no Guru Meditation line for it."""
    rnd = random.Random(seed)
    lines = [f"abort() was called at PC 0x400d2b4b on core {core}"]
    if where:
        lines.append(where)
    lines += ["", "", _backtrace(rnd), "", "", "", "", f"ELF file SHA256: {ELF_SHA}", "", "Rebooting..."]
    return NL.join(lines) + NL


def brownout_block() -> str:
    """ESP_DRAM_LOGE: no colour, no timestamp; the ROM banner follows."""
    return "E BOD: Brownout detector was triggered" + NL + NL
