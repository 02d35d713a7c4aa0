"""VirtualBoard: a behavioural ESP32 DevKit — DTR/RTS reset circuit, ROM banner, pluggable firmware.

Pin model (esptool boot-mode-selection doc; pyserial True = line asserted = pin at 0 V):

    dtr    rts    EN     IO0    state
    False  False  high   high   running
    True   True   high   high   running (the two-transistor circuit cancels itself out)
    False  True   LOW    high   held in reset: silent, input ignored, firmware halted
    True   False  high   LOW    running; download strap if EN is rising right now

EN has an RC delay: after EN is released the chip starts ``en_rc_delay`` seconds later, and it boots
into download mode when IO0 was low at any moment of that window. This is what lets esptool's
ClassicReset (``D0 R1 W0.1 D1 R0 W0.05 D0``) enter the ROM downloader even though it passes through
the (1, 1) state and even when RFC2217 stretches each line change to tens of milliseconds.

Threads: a supervisor thread performs boots when the EN window closes; each boot runs the firmware
in a fresh CPU thread. A reset bumps ``generation``; the old firmware's next ``io`` call raises
``Halted`` and its output is dropped.
"""

from __future__ import annotations

import os
import random
import threading
import time

from . import registry
from .firmware import BoardIO, Firmware, Halted, IdleFirmware
from .texts import abort_block, brownout_block, download_banner, panic_block, rom_banner

POWERON = (0x1, "POWERON_RESET")
SW_CPU_RESET = (0xC, "SW_CPU_RESET")
BROWN_OUT = (0xF, "RTCWDT_BROWN_OUT_RESET")
TX_LIMIT = 256 * 1024


class PortGone(OSError):
    """The virtual USB cable was pulled."""


class VirtualBoard:
    """One virtual ESP32 board. Reach it through ``vboard://<name>`` or an RFC2217 server."""

    def __init__(
        self,
        name: str,
        firmware: Firmware | None = None,
        *,
        en_rc_delay: float = 0.15,
        colour: bool = True,
        reboot_delay: float = 0.05,
    ) -> None:
        self.name = name
        self.firmware = firmware or IdleFirmware()
        self.en_rc_delay = en_rc_delay
        self.colour = colour
        self.reboot_delay = reboot_delay
        self._cond = threading.Condition()
        self._dtr = False
        self._rts = False
        self._tx = bytearray()
        self._rx: list[str] = []
        self._rx_partial = bytearray()
        self.generation = 0
        self.state = "off"  # off | reset | starting | running | download | crashed
        self._boot_at: float | None = None
        self._strap_low = False
        self._boot_reason = POWERON
        self._boot_t0 = time.monotonic()
        self._cpu: threading.Thread | None = None
        self._supervisor: threading.Thread | None = None
        self._closed = False
        self.powered = True   # its supply (a PDU or USB hub port): off = silent, whatever the lines say
        self.disconnected = False
        self._client: object | None = None
        self.boots: list[tuple[int, str, bool]] = []  # (reset code, reason, download mode)

    # --- power ---------------------------------------------------------------------------------

    def start(self) -> VirtualBoard:
        """Register under ``vboard://<name>`` and power on (boots after the EN delay)."""
        registry.register(self)
        self._supervisor = threading.Thread(target=self._supervise, name=f"vboard-{self.name}", daemon=True)
        self._supervisor.start()
        with self._cond:
            self.state = "reset"
            self._schedule_boot_locked(POWERON, self.en_rc_delay)
        return self

    def power(self, on: bool) -> None:
        """Switch the board's supply, as a PDU outlet or a USB hub port would (labgrid's power drivers):
        off halts it, silent; on boots it (POWERON_RESET after the EN delay) unless EN is held low."""
        with self._cond:
            if self._closed or bool(on) == self.powered:
                return
            self.powered = bool(on)
            if not on:
                self._halt_locked("off")
                return
            self.state = "reset"
            if not self.en_low:
                self._schedule_boot_locked(POWERON, self.en_rc_delay)

    def shutdown(self) -> None:
        """Power off for good: halt the firmware, stop the threads, unregister."""
        with self._cond:
            self._closed = True
            self._halt_locked("off")
            self._cond.notify_all()
        cpu = self._cpu
        if cpu is not None:
            cpu.join(timeout=10)
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)
        registry.unregister(self.name)

    # --- reset circuit ------------------------------------------------------------------------

    @property
    def dtr(self) -> bool:
        return self._dtr

    @dtr.setter
    def dtr(self, value: bool) -> None:
        self.set_lines(dtr=value)

    @property
    def rts(self) -> bool:
        return self._rts

    @rts.setter
    def rts(self, value: bool) -> None:
        self.set_lines(rts=value)

    @property
    def en_low(self) -> bool:
        return self._rts and not self._dtr

    @property
    def io0_low(self) -> bool:
        return self._dtr and not self._rts

    def set_lines(self, *, dtr: bool | None = None, rts: bool | None = None) -> None:
        """Apply a DTR/RTS change as the DevKit auto-reset circuit would."""
        with self._cond:
            if dtr is not None:
                self._dtr = bool(dtr)
            if rts is not None:
                self._rts = bool(rts)
            if self._closed or not self.powered:
                return
            if self.en_low:
                if self.state != "reset":
                    self._halt_locked("reset")
                self._boot_at = None
            elif self.state == "reset" and self._boot_at is None:
                self._schedule_boot_locked(POWERON, self.en_rc_delay)
            elif self._boot_at is not None and self.io0_low and time.monotonic() < self._boot_at:
                self._strap_low = True
            self._cond.notify_all()

    def _schedule_boot_locked(self, reason: tuple[int, str], delay: float) -> None:
        self._boot_at = time.monotonic() + delay
        self._strap_low = self.io0_low
        self._boot_reason = reason
        self._cond.notify_all()

    def _halt_locked(self, new_state: str) -> None:
        self.generation += 1
        self.state = new_state
        self._boot_at = None
        self._rx.clear()
        self._cond.notify_all()

    def _supervise(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (self._boot_at is None or time.monotonic() < self._boot_at):
                    wait = None if self._boot_at is None else max(0.0, self._boot_at - time.monotonic())
                    self._cond.wait(wait)
                if self._closed:
                    return
                self._boot_at = None
                reason, download = self._boot_reason, self._strap_low
                gen = self.generation = self.generation + 1
                self.state = "starting"
                old = self._cpu
            if old is not None and old is not threading.current_thread():
                old.join(timeout=10)
            with self._cond:
                if gen != self.generation:
                    continue
                self._boot_t0 = time.monotonic() - 0.32  # app_main starts ~320 ms after reset
                self.boots.append((reason[0], reason[1], download))
                if download:
                    self._emit_locked(download_banner(reason))
                    self.state = "download"
                    continue
                self._emit_locked(rom_banner(reason, colour=self.colour))
                self.state = "running"
                self._cpu = threading.Thread(target=self._run_cpu, args=(gen,), name=f"vboard-{self.name}-cpu", daemon=True)
                self._cpu.start()

    def _run_cpu(self, gen: int) -> None:
        io = BoardIO(self, gen)
        try:
            self.firmware.run(io)
        except Halted:
            pass
        except Exception as exc:  # noqa: BLE001 - a firmware bug is a board crash, not a test-run crash
            with self._cond:
                if gen == self.generation:
                    self._crash_locked(abort_block(f"{type(exc).__name__}: {exc}"), SW_CPU_RESET)

    # --- firmware side (called through BoardIO) ------------------------------------------------

    def _alive(self, gen: int) -> bool:
        return gen == self.generation and not self._closed

    def _emit_locked(self, text: str) -> None:
        if self._client is None:
            return  # nobody listening on the UART: bytes are lost, like on a real board
        self._tx += text.encode("utf-8")
        if len(self._tx) > TX_LIMIT:
            del self._tx[: len(self._tx) - TX_LIMIT]
        self._cond.notify_all()

    def uptime_ms(self) -> int:
        return int((time.monotonic() - self._boot_t0) * 1000)

    # --- fault injection -------------------------------------------------------------------------

    def panic(self, reason: str = "LoadProhibited", core: int = 0) -> None:
        """A Guru Meditation panic: register dump, backtrace, ELF SHA, Rebooting..., rst:0xc."""
        with self._cond:
            self._crash_locked(panic_block(reason, core), SW_CPU_RESET)

    def abort(self, where: str = "") -> None:
        """abort(): no Guru line, just the abort line, backtrace, ELF SHA, Rebooting..."""
        with self._cond:
            self._crash_locked(abort_block(where), SW_CPU_RESET)

    def brownout(self) -> None:
        with self._cond:
            self._crash_locked(brownout_block(), BROWN_OUT)

    def restart(self) -> None:
        """esp_restart(): a clean software reset (still an unexpected reboot to the harness)."""
        with self._cond:
            self._crash_locked("", SW_CPU_RESET)

    def _crash_locked(self, text: str, reason: tuple[int, str]) -> None:
        if self.state not in ("running", "starting", "download"):
            return
        self._halt_locked("crashed")
        self._emit_locked(text)
        self.state = "reset"
        self._schedule_boot_locked(reason, self.reboot_delay)
        self._strap_low = False

    def inject(self, data: bytes) -> None:
        """Put raw bytes on the UART (line noise, partial lines), whatever the state."""
        with self._cond:
            if self._client is not None:
                self._tx += data
                self._cond.notify_all()

    def noise(self, n: int = 64, seed: int | None = None) -> bytes:
        rnd = random.Random(seed)
        data = bytes(rnd.getrandbits(8) for _ in range(n))
        self.inject(data)
        return data

    def disconnect(self) -> None:
        """Pull the USB cable: every read/write on the attached port fails from now on."""
        with self._cond:
            self.disconnected = True
            self._cond.notify_all()

    def reconnect(self) -> None:
        with self._cond:
            self.disconnected = False
            self._client = None

    # --- UART side (called by the vboard:// Serial class) ------------------------------------------

    def attach(self, client: object) -> None:
        with self._cond:
            if self.disconnected:
                raise PortGone(2, f"vboard://{self.name}: no such device (disconnected)")
            if self._client is not None and self._client is not client:
                raise OSError(16, f"vboard://{self.name} is busy: another client has it open")
            self._client = client
            self._tx.clear()

    def detach(self, client: object) -> None:
        with self._cond:
            if self._client is client:
                self._client = None
                self._tx.clear()

    def read(self, size: int, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self.disconnected:
                    raise PortGone(5, f"vboard://{self.name}: device disconnected")
                if self._tx:
                    data = bytes(self._tx[:size])
                    del self._tx[:size]
                    return data
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return b""
                self._cond.wait(remaining)

    @property
    def in_waiting(self) -> int:
        with self._cond:
            if self.disconnected:
                raise PortGone(5, f"vboard://{self.name}: device disconnected")
            return len(self._tx)

    def clear_tx(self) -> None:
        with self._cond:
            self._tx.clear()

    def receive(self, data: bytes) -> None:
        """Bytes from the host. Only a running firmware hears them."""
        with self._cond:
            if self.disconnected:
                raise PortGone(5, f"vboard://{self.name}: device disconnected")
            if self.state != "running":
                return
            self._rx_partial += data
            while b"\n" in self._rx_partial:
                line, _, rest = bytes(self._rx_partial).partition(b"\n")
                self._rx_partial = bytearray(rest)
                self._rx.append(line.decode("utf-8", "replace").strip("\r"))
            self._cond.notify_all()

    def _take_input(self) -> list[str]:
        lines, self._rx = self._rx, []
        return lines

    def __repr__(self) -> str:
        return f"<VirtualBoard {self.name} state={self.state} dtr={self._dtr} rts={self._rts} pid={os.getpid()}>"
