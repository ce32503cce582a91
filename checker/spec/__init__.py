"""Spec files: load YAML with positions, validate structure, then meaning, into a frozen model."""
