"""The C allocator, asked to give memory back: what a burst of large objects (the store's history)
or of connections (the serving layer) took returns to the system once the burst is over. glibc keeps
freed pages otherwise, and RSS would stay at an attacker's peak. Elsewhere (other allocators) these
do nothing: those give memory back themselves."""

from __future__ import annotations

import ctypes
import ctypes.util

MMAP_THRESHOLD = 128 * 1024          # glibc's initial threshold, kept (M_MMAP_THRESHOLD)


def _libc(name: str):
    """A glibc function (None elsewhere: other allocators give memory back themselves)."""
    try:
        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _libc("malloc_trim")
_MALLOPT = _libc("mallopt")


def give_back() -> None:
    """Free pages at the top of the heap and inside it go back to the system (``malloc_trim(0)``)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def keep_large_allocations_apart() -> None:
    """For a server process: every allocation of ``MMAP_THRESHOLD`` or more (the strings of a large
    object, a large body) gets a mapping of its own, unmapped when freed. glibc otherwise raises the
    threshold to the largest block freed so far, and later ones come from the heap, whose pages a
    few long-lived small objects can keep from ever going back."""
    if _MALLOPT is not None:
        _MALLOPT(-3, MMAP_THRESHOLD)             # M_MMAP_THRESHOLD
