"""What a spec edit changes: entries that move, fragments added or removed, verdicts that change."""
