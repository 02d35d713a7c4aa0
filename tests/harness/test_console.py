"""Table-driven tests of the pure console parser and crash classifier (real ESP-IDF byte streams)."""

from __future__ import annotations

import random

import pytest

from kube32.harness.console import (
    RESET_REASONS,
    Alarm,
    Crash,
    CrashDetector,
    Garbage,
    LineSplitter,
    LogLine,
    ResetBanner,
    Text,
    parse_line,
)
from kube32.harness.virtual.texts import abort_block, panic_block


@pytest.mark.parametrize(
    ("raw", "level", "timestamp", "tag", "message"),
    [
        (b"I (312) kube32: ready", "I", "312", "kube32", "ready"),
        (b"\x1b[0;32mI (312) kube32: ready\x1b[0m", "I", "312", "kube32", "ready"),
        (b"\x1b[0;31mE (1234) task_wdt: Task watchdog got triggered.\x1b[0m\r", "E", "1234", "task_wdt", "Task watchdog got triggered."),
        (b"\x1b[0;33mW (12:34:56.789) wifi: retry\x1b[0m", "W", "12:34:56.789", "wifi", "retry"),
        (b"D (24-01-02 12:34:56.789) http: GET /api", "D", "24-01-02 12:34:56.789", "http", "GET /api"),
        (b"V (1700000000123) x: y", "V", "1700000000123", "x", "y"),
        (b"E BOD: Brownout detector was triggered", "E", None, "BOD", "Brownout detector was triggered"),
        (b"I kubelet: no timestamp", "I", None, "kubelet", "no timestamp"),
        (b"I (5) main_task: Calling app_main()", "I", "5", "main_task", "Calling app_main()"),
    ],
)
def test_log_lines(raw, level, timestamp, tag, message):
    ev = parse_line(raw)
    assert isinstance(ev, LogLine)
    assert (ev.level, ev.timestamp, ev.tag, ev.message) == (level, timestamp, tag, message)
    assert "\x1b" not in ev.text and "\r" not in ev.text


def test_ms_since_boot_only_for_numeric_timestamps():
    assert parse_line(b"I (312) a: b").ms == 312
    assert parse_line(b"I (12:34:56.789) a: b").ms is None


@pytest.mark.parametrize(
    ("raw", "code", "reason", "boot", "download"),
    [
        (b"rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r", 0x1, "POWERON_RESET", 0x13, False),
        (b"rst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)", 0xC, "SW_CPU_RESET", 0x13, False),
        (b"rst:0x10 (RTCWDT_RTC_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)", 0x10, "RTCWDT_RTC_RESET", 0x13, False),
        (b"rst:0x1 (POWERON_RESET),boot:0x3 (DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2))", 0x1, "POWERON_RESET", 0x3, True),
        (b"rst:0x1 (POWERON),boot:0x18 (SPI_FAST_FLASH_BOOT)", 0x1, "POWERON", 0x18, False),
    ],
)
def test_reset_banner(raw, code, reason, boot, download):
    ev = parse_line(raw)
    assert isinstance(ev, ResetBanner)
    assert (ev.reset_code, ev.reset_reason, ev.boot_code, ev.download_mode) == (code, reason, boot, download)


def test_reset_reason_table_names_the_esp32_codes():
    assert RESET_REASONS[0x1] == "POWERON_RESET"
    assert RESET_REASONS[0xC] == "SW_CPU_RESET"
    assert RESET_REASONS[0xF] == "RTCWDT_BROWN_OUT_RESET"
    assert RESET_REASONS[0x10] == "RTCWDT_RTC_RESET"


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"ets Jun  8 2016 00:22:57", Text),
        (b"", Text),
        (b"\xff\xfe\x80abc", Garbage),
        (b"ok\x00\x01\x02", Garbage),
        (b"caf\xc3", Garbage),  # truncated UTF-8 sequence
    ],
)
def test_other_lines(raw, kind):
    assert type(parse_line(raw)) is kind


def test_garbage_keeps_raw_bytes():
    ev = parse_line(b"\xff\x00x")
    assert isinstance(ev, Garbage) and ev.raw == b"\xff\x00x" and ev.reason


def test_splitter_keeps_partial_lines_until_newline():
    s = LineSplitter()
    assert s.feed(b"I (1) a: hel") == []
    assert s.pending == b"I (1) a: hel"
    out = s.feed(b"lo\r\nI (2) a: x\r\npart")
    assert [e.text for e in out] == ["I (1) a: hello", "I (2) a: x"]
    assert [e.text for e in s.flush()] == ["part"]
    assert s.flush() == []


def test_splitter_cuts_endless_lines():
    s = LineSplitter(max_line=16)
    out = s.feed(b"x" * 40)
    assert [len(e.text) for e in out] == [16, 16]
    assert s.pending == b"x" * 8


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_never_raise(seed):
    rnd = random.Random(seed)
    splitter, detector = LineSplitter(max_line=256), CrashDetector()
    data = bytes(rnd.getrandbits(8) for _ in range(4000))
    events = []
    for i in range(0, len(data), rnd.randint(1, 64)):
        for line in splitter.feed(data[i : i + 64]):
            events.append(line)
            detector.feed(line)
    events += splitter.flush()
    assert any(isinstance(e, Garbage) for e in events)


def feed_text(text: str, detector: CrashDetector | None = None, chunk: int = 7):
    detector = detector or CrashDetector()
    splitter = LineSplitter()
    out = []
    data = text.encode()
    for i in range(0, len(data), chunk):
        for line in splitter.feed(data[i : i + chunk]):
            out += detector.feed(line)
    return out, detector


BANNER_C = "ets Jun  8 2016 00:22:57\r\n\r\nrst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"


def crashes(events):
    return [e for e in events if isinstance(e, Crash)]


def test_guru_meditation_block_with_two_space_core():
    events, _ = feed_text("\x1b[0;32mI (10) app: working\x1b[0m\r\n" + panic_block("StoreProhibited") + BANNER_C)
    [crash] = crashes(events)
    assert crash.kind == "panic" and crash.reason == "StoreProhibited"
    assert crash.text.startswith("Guru Meditation Error: Core  0 panic'ed (StoreProhibited)")
    assert crash.text.rstrip().endswith("Rebooting...")
    assert "ELF file SHA256:" in crash.text and crash.elf_sha256
    assert crash.backtrace is not None and crash.backtrace.startswith("Backtrace: 0x")
    assert "rst:0xc" not in crash.text  # the reboot banner after a crash is not a second crash


def test_abort_without_guru_line():
    events, _ = feed_text(abort_block() + BANNER_C)
    [crash] = crashes(events)
    assert crash.kind == "abort"
    assert crash.reason == "abort() was called at PC 0x400d2b4b on core 0"
    assert "Guru" not in crash.text and crash.backtrace


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("assert failed: app_main main.c:12 (x == 1)", "assert"),
        ("ESP_ERROR_CHECK failed: esp_err_t 0x103 (ESP_ERR_INVALID_STATE) at 0x400d1234", "esp_error_check"),
        ("Guru Meditation Error: Core  1 panic'ed (Unhandled debug exception). ", "panic"),
        ("Stack canary watchpoint triggered (kubelet)", "stack_canary"),
        ("CORRUPT HEAP: Bad head at 0x3ffb8f00. Expected 0xabba1234 got 0x00000000", "corrupt_heap"),
        ("================= CORE DUMP START =================", "core_dump"),
    ],
)
def test_crash_headers(header, kind):
    text = f"{header}\r\n\r\nBacktrace: 0x400d1:0x3ffb1 0x400d2:0x3ffb2\r\n\r\nELF file SHA256: abcd\r\n\r\nRebooting...\r\n"
    events, _ = feed_text(text + BANNER_C)
    [crash] = crashes(events)
    assert crash.kind == kind
    assert crash.lines[0] == header.rstrip() or crash.lines[0] == header
    assert crash.backtrace == "Backtrace: 0x400d1:0x3ffb1 0x400d2:0x3ffb2"


def test_brownout_without_timestamp_ends_at_the_banner():
    text = "E BOD: Brownout detector was triggered\r\n\r\nets Jun  8 2016 00:22:57\r\n\r\nrst:0xf (RTCWDT_BROWN_OUT_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"
    events, _ = feed_text(text)
    [crash] = crashes(events)
    assert crash.kind == "brownout" and "ets" not in crash.text


WDT = (
    "\x1b[0;31mE (5000) task_wdt: Task watchdog got triggered. The following tasks/users did not reset the watchdog in time:\x1b[0m\r\n"
    "\x1b[0;31mE (5000) task_wdt:  - IDLE0 (CPU 0)\x1b[0m\r\n"
    "\x1b[0;31mE (5000) task_wdt: Tasks currently running:\x1b[0m\r\n"
    "\x1b[0;31mE (5000) task_wdt: CPU 0: main\x1b[0m\r\n"
    "\x1b[0;31mE (5000) task_wdt: Print CPU 0 (current core) backtrace\x1b[0m\r\n"
    "Backtrace: 0x400d9:0x3ffb9\r\n"
)


def test_task_watchdog_alone_is_a_warning():
    events, _ = feed_text(WDT + "I (5100) app: still alive\r\n")
    assert crashes(events) == []
    assert [e.kind for e in events if isinstance(e, Alarm)] == ["task_wdt"]


def test_task_watchdog_followed_by_aborting_is_a_crash():
    events, _ = feed_text(WDT + "\x1b[0;31mE (5000) task_wdt: Aborting.\x1b[0m\r\n" + abort_block() + BANNER_C)
    [crash] = crashes(events)
    assert crash.kind == "task_wdt"
    assert crash.lines[0].startswith("E (5000) task_wdt: Task watchdog got triggered")
    assert crash.backtrace == "Backtrace: 0x400d9:0x3ffb9"
    assert "Rebooting..." in crash.text


def test_unexpected_and_expected_reboots():
    banner = "rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"
    events, detector = feed_text(banner)
    [crash] = crashes(events)
    assert crash.kind == "unexpected_reboot" and crash.reason == "rst:0x1 (POWERON_RESET)"
    detector.expect_reset()
    events, _ = feed_text(banner, detector)
    assert crashes(events) == []


def test_unfinished_block_is_reported_on_flush():
    events, detector = feed_text("Guru Meditation Error: Core  0 panic'ed (IllegalInstruction). Exception was unhandled.\r\nCore  0 register dump:\r\n")
    assert crashes(events) == [] and detector.in_crash
    [crash] = detector.flush()
    assert crash.reason == "IllegalInstruction" and crash.backtrace is None
    assert not detector.in_crash


def test_garbage_inside_a_log_never_starts_a_crash():
    events, _ = feed_text("\xff\xfe Guru".encode("latin-1").decode("latin-1") + "\r\nI (1) a: b\r\n")
    assert crashes(events) == []
