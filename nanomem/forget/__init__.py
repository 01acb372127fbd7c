"""Forget: remove a fact from every place it lives, git history included, and prove it."""
