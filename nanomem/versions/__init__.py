"""The memory repository: the only importer of dulwich."""
