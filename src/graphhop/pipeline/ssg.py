"""The ``ssg`` pipeline: NeuralDB's support-set generator over a first stage's candidates, then the reader."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphhop.core import InputError, Stage
from graphhop.pipeline.ask import AskPipeline
from graphhop.pipeline.bgr import BGRGraphs
from graphhop.pipeline.builtin import _options, _reader
from graphhop.pipeline.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["SSGGraphs"]


class SSGGraphs(Stage):
    """A graph builder: ``first_stage % top_n >> SSGGraphs(model)``, SSG's support sets as an evidence graph.

    The model (``graphhop.train.ssg``, saved by :func:`graphhop.retrieve.ssg.save_ssg`) and its encoder load once.
    """

    name = "ssg"

    def __init__(self, model: str | Path, docs: Any = None, top_n: int = 25) -> None:
        from graphhop.models.encoder import load_encoder
        from graphhop.retrieve.ssg import SSGRetriever, load_ssg

        ssg, _ = load_ssg(model)
        self.encoder = load_encoder(ssg.cfg.encoder_to_load())
        self.retriever = SSGRetriever(ssg, self.encode)
        self.docs, self.depth = docs, top_n

    def graph_over(self, question: str, ids: list[str], texts: list[str], facts: list[list[list[str]]]) -> "EvidenceGraph":
        """SSG's graph of ``question`` over the given candidates (the closed setting)."""
        from graphhop.retrieve.graphhop import CandidatePool

        if not ids:
            raise InputError("no candidate evidence for the question")
        return self.retriever.retrieve_pool(question, CandidatePool(ids, texts, self.encode(texts), facts))

    # the encoder call and the candidate loop are BGR's: they only use these attributes
    encode = BGRGraphs.encode
    graphs = BGRGraphs.graphs


def _ssg(index: Any, **options: Any) -> AskPipeline:
    from graphhop.retrieve import make_retriever

    opts = _options("ssg", options, {"ssg_model": None, "first_stage": "dense", "top_n": 25})
    if opts["ssg_model"] is None:
        raise InputError("ssg needs --ssg-model DIR (option ssg_model=DIR: a model saved by graphhop.train.ssg.train_ssg)")
    first = make_retriever(index, opts["first_stage"], opts["model"]) % opts["top_n"]
    return AskPipeline("ssg", first >> SSGGraphs(opts["ssg_model"], index.docs, opts["top_n"]), _reader(opts))


register("ssg", _ssg, help="SSG (NeuralDB support sets): a trained model (ssg_model=DIR) over a first stage's top_n.")
