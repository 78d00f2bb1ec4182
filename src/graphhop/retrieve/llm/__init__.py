"""LLM few-shot reasoning graphs (Graph-hop paper, appendix A.6) as a graph retriever.

An LLM behind any OpenAI-compatible chat endpoint gets one of five reasoning-graph prompts
(:mod:`.prompts`) with few-shot examples from a builder train split, the question and its candidate
pool; its reply is parsed into an :class:`~graphhop.graph.EvidenceGraph` (:mod:`.parse`). An
unparseable reply gives an empty graph (scored as such) and is counted in :attr:`LLMGraphRetriever.stats`;
so is a request that failed after its retries. Nothing is contacted unless a client is configured.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from graphhop.core import GraphhopError, InputError
from graphhop.graph import EvidenceGraph
from graphhop.retrieve.llm.client import KEY_ENV, ChatClient, LLMError
from graphhop.retrieve.llm.parse import ParseResult, parse_reply
from graphhop.retrieve.llm.prompts import TEMPLATES, Shot, build_messages, pick_shots

__all__ = ["LLMGraphRetriever", "ChatClient", "LLMError", "TEMPLATES", "KEY_ENV", "pick_shots", "parse_reply"]


class LLMGraphRetriever:
    """Reasoning graphs from an LLM over candidate pools.

    ``retrieve_pool(question, ids, texts, facts)`` asks the model once (over an index:
    :class:`graphhop.pipeline.llm.LLMGraphs`). ``max_errors`` consecutive failed requests stop the run
    (a misconfigured endpoint should not score a whole dataset as empty graphs).
    """

    def __init__(self, client: ChatClient, template: str = "direct", shots: Sequence[Shot] = (),
                 max_errors: int = 3) -> None:
        if template not in TEMPLATES:
            raise InputError(f"unknown prompt template {template!r}; choose one of {', '.join(TEMPLATES)}")
        self.client = client
        self.template = template
        self.shots = list(shots)
        self.max_errors = max_errors
        self.stats: Counter[str] = Counter()
        self.repairs: Counter[str] = Counter()
        self.last: ParseResult | None = None
        self._consecutive = 0

    def retrieve_pool(self, question: str, ids: Sequence[str], texts: Sequence[str],
                      facts: Sequence[Any] | None = None) -> EvidenceGraph:
        """The parsed graph of one question over its pool (empty when the reply is unusable)."""
        messages = build_messages(self.template, question, ids, texts, self.shots)
        self.stats["questions"] += 1
        try:
            reply = self.client.complete(messages)
        except LLMError as exc:
            self.stats["request failed"] += 1
            self._consecutive += 1
            if self._consecutive >= self.max_errors:
                raise GraphhopError(f"{self._consecutive} LLM requests failed in a row; last: {exc}") from None
            self.last = ParseResult(EvidenceGraph(question), "unparseable", [f"request failed: {exc}"])
            return self.last.graph
        self._consecutive = 0
        self.last = parse_reply(reply, question, ids, texts, facts)
        self.stats[self.last.status] += 1
        for r in self.last.repairs:
            self.repairs[_repair_kind(r)] += 1
        return self.last.graph


def _repair_kind(repair: str) -> str:
    """A repair message without its ids (``unknown id 'e99' dropped`` -> ``unknown id dropped``)."""
    import re

    return re.sub(r"\s+", " ", re.sub(r"'[^']*'|\b[\w:-]*\d[\w:-]*\b|\bQ\b", "", repair)).strip()
