"""The hot-path stage: archive old turns when the prompt nears its budget."""
