"""Schemathesis hooks for fuzzing the reference: a generated ``watch=true`` would open a stream
that ends only at its timeout, so the fuzzer lists instead (watches have tests of their own)."""

import schemathesis


@schemathesis.hook
def map_query(ctx, query):
    if query:
        query.pop("watch", None)
    return query
