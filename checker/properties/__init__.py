"""The properties every fragment must have, by name, and the plain-Python engine for them."""

PROPERTIES = ("fragment-shape", "defined", "in-range", "injective", "covers", "chunk")  # chunk: sparse A only
SMT_PROPERTIES = ("defined", "in-range", "injective", "covers")
