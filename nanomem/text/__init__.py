"""Pure text functions: tokens, redaction, text units, the prompt block."""
