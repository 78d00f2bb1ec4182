"""A pluggable generative (seq2seq) reader, as the Graph-hop paper's T5 reader.

``Seq2SeqReader("google/flan-t5-base")`` (or a local directory) loads any Hugging Face
encoder-decoder with ``AutoModelForSeq2SeqLM``; nothing ships with graphhop and nothing is
downloaded unless Hugging Face is allowed to (``HF_HUB_OFFLINE``). The input is a prompt built
from the question and the evidence graph linearized in graph order
(:func:`graphhop.read.span.linearize`); the answer is the greedy (or beam) generation, its score
the mean token log-probability. A model and tokenizer already in memory can be passed directly.
"""

from __future__ import annotations

from typing import Any, Sequence

from graphhop.core import Answer, GraphhopError
from graphhop.graph import EvidenceGraph
from graphhop.read.span import linearize

__all__ = ["DEFAULT_PROMPT", "Seq2SeqReader"]

#: The prompt template; ``{question}`` and ``{context}`` are filled in.
DEFAULT_PROMPT = "question: {question} context: {context}"


class Seq2SeqReader:
    """Generates the answer from ``prompt.format(question=..., context=linearized evidence)``;
    implements :class:`graphhop.core.Reader`."""

    def __init__(
        self,
        name: str | None = None,
        *,
        model: Any = None,
        tokenizer: Any = None,
        prompt: str = DEFAULT_PROMPT,
        max_input_tokens: int = 512,
        max_new_tokens: int = 32,
        num_beams: int = 1,
    ) -> None:
        if model is None or tokenizer is None:
            if name is None:
                raise GraphhopError("Seq2SeqReader needs a model name/path, or a model and a tokenizer")
            model, tokenizer = self._load(name)
        self.name = name
        self.model = model
        self.tokenizer = tokenizer
        self.prompt = prompt
        self.max_input_tokens = max_input_tokens
        self.max_new_tokens = max_new_tokens
        self.num_beams = num_beams
        self.model.eval()

    @staticmethod
    def _load(name: str) -> tuple[Any, Any]:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        from graphhop.models.encoder import resolve_model

        target = resolve_model(name)
        try:
            tokenizer = AutoTokenizer.from_pretrained(target)
            model = AutoModelForSeq2SeqLM.from_pretrained(target)
        except (OSError, ValueError) as exc:
            raise GraphhopError(f"cannot load seq2seq reader {name!r}: {str(exc).splitlines()[0]}") from None
        return model, tokenizer

    def build_input(self, question: str, evidence: EvidenceGraph) -> str:
        """The prompt for one question."""
        context, _ = linearize(evidence)
        return self.prompt.format(question=question, context=context)

    def predict(self, questions: Sequence[str], evidences: Sequence[EvidenceGraph], batch_size: int = 8) -> list[Answer]:
        """Generated answers (score: mean log-probability of the generated tokens)."""
        import torch

        out: list[Answer] = []
        for i in range(0, len(questions), batch_size):
            prompts = [self.build_input(q, g) for q, g in zip(questions[i : i + batch_size], evidences[i : i + batch_size])]
            enc = self.tokenizer(prompts, return_tensors="pt", padding=True, truncation=True, max_length=self.max_input_tokens)
            enc.pop("token_type_ids", None)
            with torch.inference_mode():
                gen = self.model.generate(
                    **enc, max_new_tokens=self.max_new_tokens, num_beams=self.num_beams,
                    output_scores=True, return_dict_in_generate=True,
                )
                scores = self.model.compute_transition_scores(gen.sequences, gen.scores, getattr(gen, "beam_indices", None),
                                                              normalize_logits=True)
            texts = self.tokenizer.batch_decode(gen.sequences, skip_special_tokens=True)
            for b, text in enumerate(texts):
                row = scores[b]
                finite = row[torch.isfinite(row)]
                out.append(Answer(text.strip(), float(finite.mean()) if finite.numel() else float("-inf"), ()))
        return out

    def answer(self, question: str, evidence: EvidenceGraph) -> Answer:
        return self.predict([question], [evidence])[0]
