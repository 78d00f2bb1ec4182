"""Readers: evidence graph -> answer. Fact reader and question-type operations over KG evidence
(:mod:`.facts`, :mod:`.graphs`, :mod:`.ops`), the span reader (:mod:`.span`), a seq2seq reader (:mod:`.generative`)."""

from __future__ import annotations

from graphhop.read.facts import FactReader
from graphhop.read.graphs import build_evidence_graph, graph_from_paths, support_graph
from graphhop.read.ops import QTYPES, OperationReader, detect_qtype

__all__ = ["FactReader", "OperationReader", "build_evidence_graph", "graph_from_paths", "support_graph", "detect_qtype", "QTYPES"]
