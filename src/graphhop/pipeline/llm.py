"""The ``llm`` pipeline: an LLM's few-shot reasoning graph over a first stage's candidates, then the reader.

Nothing is contacted unless ``llm_url`` and ``llm_model`` are given (``graphhop ask --method llm
--llm-url URL --llm-model NAME``); the key is read from ``$GRAPHHOP_LLM_API_KEY`` (``llm_key_env``).
Few-shot examples come from ``llm_shots``: a builder dataset folder (its ``train.jsonl``) or a JSONL file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from graphhop.core import InputError, Stage
from graphhop.pipeline.ask import AskPipeline
from graphhop.pipeline.bgr import BGRGraphs
from graphhop.pipeline.builtin import _options, _reader
from graphhop.pipeline.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph
    from graphhop.retrieve.llm import ChatClient

__all__ = ["LLMGraphs", "load_shots"]


class LLMGraphs(Stage):
    """A graph builder: ``first_stage % top_n >> LLMGraphs(...)``, the LLM's reasoning graph over the
    candidates (see :mod:`graphhop.retrieve.llm`)."""

    name = "llm"

    def __init__(self, client: "ChatClient", template: str = "direct", shots: Sequence[Any] = (),
                 docs: Any = None, top_n: int = 25) -> None:
        from graphhop.retrieve.llm import LLMGraphRetriever

        self.retriever = LLMGraphRetriever(client, template, shots)
        self.docs, self.depth = docs, top_n

    def graph_over(self, question: str, ids: list[str], texts: list[str], facts: list[list[list[str]]]) -> "EvidenceGraph":
        """The LLM's graph of ``question`` over the given candidates (the closed setting)."""
        if not ids:
            raise InputError("no candidate evidence for the question")
        return self.retriever.retrieve_pool(question, ids, texts, facts)

    # the candidate loop is BGR's: it only calls graph_over
    graphs = BGRGraphs.graphs


def load_shots(source: str | Path, n: int = 3) -> list[Any]:
    """``n`` few-shot examples from a builder dataset folder (its ``train.jsonl``) or a builder JSONL file."""
    from graphhop.datasets.builder import read_records
    from graphhop.retrieve.llm import pick_shots

    path = Path(source)
    path = path / "train.jsonl" if path.is_dir() else path
    if not path.exists():
        raise InputError(f"{path}: no such file (few-shot examples: a builder dataset folder or its train.jsonl)")
    return pick_shots(read_records(path), n)


def _llm(index: Any, **options: Any) -> AskPipeline:
    from graphhop.retrieve import make_retriever
    from graphhop.retrieve.llm import KEY_ENV, ChatClient

    opts = _options("llm", options, {"llm_url": None, "llm_model": None, "llm_key_env": KEY_ENV,
                                     "llm_template": "direct", "llm_shots": None, "n_shots": 3, "llm_timeout": 60.0,
                                     "llm_retries": 2, "first_stage": "dense", "top_n": 25})
    if not opts["llm_url"] or not opts["llm_model"]:
        raise InputError("llm needs --llm-url URL and --llm-model NAME (an OpenAI-compatible chat endpoint); "
                         "nothing is contacted without them")
    client = ChatClient(opts["llm_url"], opts["llm_model"], opts["llm_key_env"], opts["llm_timeout"], opts["llm_retries"])
    shots = load_shots(opts["llm_shots"], opts["n_shots"]) if opts["llm_shots"] else []
    first = make_retriever(index, opts["first_stage"], opts["model"]) % opts["top_n"]
    stage = LLMGraphs(client, opts["llm_template"], shots, index.docs, opts["top_n"])
    return AskPipeline("llm", first >> stage, _reader(opts))


register("llm", _llm, help="LLM few-shot reasoning graph (llm_url, llm_model; llm_template, llm_shots=DIR) over a first stage's top_n.")
