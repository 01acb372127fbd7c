"""The workspace on disk: paths, atomic writes and locks, the memory files, history, sessions."""
