"""The deterministic offline engine."""
