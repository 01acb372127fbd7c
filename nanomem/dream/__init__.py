"""The cold-path stage: run_dream(), the one Dream sequence."""
