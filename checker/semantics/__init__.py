"""The reference model of mma: which instruction variants a spec describes, how registers hold
matrix elements, and what the instruction computes."""
