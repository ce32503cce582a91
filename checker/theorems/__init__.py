"""Theorems that tie several layouts together: cross-operand consistency and declared relations."""
