"""Hostile clients against the store of a real ``serve`` on an SQLite data dir, over loopback
(``benchmarks/store_attacks.py`` runs the same with figures): a 400 KiB strategic merge patch of
12,000 keyed entries is merged and stored while another client goes on reading and writing; 5,000
patches of a 200 KiB annotation, then the objects deleted: the server's memory comes back to within
20 % of where it started once the history has let go of them. No time is asserted."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _servers  # noqa: E402
import store_attacks  # noqa: E402


@pytest.fixture
def server():
    with tempfile.TemporaryDirectory() as data, _servers.server(_servers.ROOT, data_dir=data) as (url, pid):
        yield url, pid


@pytest.mark.timeout(900)
def test_a_patch_of_twelve_thousand_keyed_entries_is_merged_beside_other_clients(server):
    url, _ = server
    r = store_attacks.patch_attack(url)
    store_attacks.show("patch attack", {"patch": r})
    assert r["status"] == 200 and r["entries"] == store_attacks.ENTRIES + 1
    assert r["failures"] == 0                 # the other client's reads and writes all answered


@pytest.mark.timeout(1800)
def test_memory_an_attacker_took_comes_back_after_it_left(server):
    url, pid = server
    r = store_attacks.history_attack(url, pid)
    store_attacks.show("history attack", {"history": r})
    assert r["failed"] == 0, r["first_failure"]
    assert r["after_over_start"] <= 1.2, (
        f"RSS {r['start_mb']:.0f} MB before, {r['after_mb']:.0f} MB {store_attacks.SETTLE:.0f} s after the attacker left")
