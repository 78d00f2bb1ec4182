"""Pipelines: named compositions of retrieval, graph and reading stages (see :mod:`graphhop.pipeline.ask`)."""
