"""The only package that imports z3."""
