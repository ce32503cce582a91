"""The document's formula notation: grammar, AST with spans, printer, plain-Python evaluator."""
