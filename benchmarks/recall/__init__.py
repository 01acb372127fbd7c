"""Recall benchmark: multi-session conversations, questions, evidence turns (see README.md)."""
