"""Sizes are bounded before any cost that grows with them is paid."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("text", ["1e10000000", "1" * 5000, "1E99999999999999999999"])
def test_a_quantitys_size_is_decided_before_any_arithmetic(text, monkeypatch):
    """Huge exponents and numbers are refused from their digits alone: the exact amount is never
    computed (with the old code, 1e10000000 made a ten-million-digit integer)."""
    from kube32.reference.machinery import limits
    from kube32.spec import quantities

    def never(*_):
        raise AssertionError("the amount was computed")
    monkeypatch.setattr(quantities, "parse", never)
    assert limits.quantity_problem(text) is not None
