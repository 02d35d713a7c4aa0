"""The machine-readable kube32 contract.

Clause catalogue, timing profiles, named numbers, upstream strings, the quantity grammar and the
object schemas. Pure data and loaders: imports nothing from the other rooms and does no I/O beyond
reading its own files.
"""
