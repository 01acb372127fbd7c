"""Memory quality benchmark: replay scripted conversations through nanomem, score the files.

Run ``python -m benchmarks.quality.run``; see ``docs/quality.md``.
"""
