"""Output formats: compiler-style text and JSON."""
