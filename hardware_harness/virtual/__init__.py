"""Virtual ESP32 boards for CI: behavioural boards, firmwares, and two pyserial routes to them.

Importing this package registers the ``vboard://`` URL scheme with pyserial.
"""

from __future__ import annotations

import serial

from .board import VirtualBoard
from .firmware import BoardIO, Firmware, Halted, IdleFirmware, NeverBoots
from .rfc2217_server import Rfc2217Server
from .virtual_rig import VirtualRig

if "kube32.harness.virtual" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("kube32.harness.virtual")

__all__ = ["VirtualBoard", "VirtualRig", "BoardIO", "Firmware", "Halted", "IdleFirmware", "NeverBoots",
           "Rfc2217Server"]
