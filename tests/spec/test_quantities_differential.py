"""Differential test: kube32's quantity parser against the Kubernetes Python client's
``kubernetes.utils.parse_quantity`` over the grammar the two share — where the kube32 document
defers to Kubernetes, the values must be equal.

Left out on purpose, each for a stated reason:
- suffixes Kubernetes does not know: the document's deviation (they count 0 here; upstream rejects
  them) — tests/spec/test_quantities.py pins that rule;
- values finer than a nano: Kubernetes' resource.Quantity rounds them up to 1n (as kube32 does),
  while the Python client keeps the exact decimal;
- the client's own leniencies that Kubernetes' Go parser rejects (spaces, ``1K``, ``Infinity``):
  the strategy below only writes quantities Kubernetes accepts.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from kubernetes.utils import parse_quantity

from kube32.spec import quantities

BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
DECIMAL = ("n", "u", "m", "", "k", "M", "G", "T", "P", "E")
DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=7)

number = st.one_of(
    DIGITS,                                                   # 12
    st.builds(lambda i, f: f"{i}.{f}", DIGITS, DIGITS),       # 1.5
    st.builds(lambda i: f"{i}.", DIGITS),                     # 1.
    st.builds(lambda f: f".{f}", DIGITS),                     # .5
)
suffix = st.one_of(
    st.sampled_from(BINARY + DECIMAL),
    st.builds(lambda e, sign, n: f"{e}{sign}{n}", st.sampled_from("eE"), st.sampled_from(("", "+", "-")),
              st.integers(0, 12)),                            # decimal exponent: 1e3, 1E-3
)
quantity = st.builds(lambda sign, n, s: f"{sign}{n}{s}", st.sampled_from(("", "+", "-")), number, suffix)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)   # reproducible, writes nothing
@given(quantity)
@example("1Ki")
@example("12E")
@example("1e3")
@example("-.5Gi")
@example("1.m")
def test_kube32_and_kubernetes_agree_on_the_shared_grammar(text):
    with decimal.localcontext() as ctx:
        ctx.prec = 80                                 # the client multiplies in the current context
        upstream = Fraction(parse_quantity(text))
    assume((upstream * 10**9).denominator == 1)       # finer than a nano: see the module docstring
    assert quantities.parse(text) == upstream
