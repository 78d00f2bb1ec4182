"""Choosing one sentence among several data-to-text candidates (Graph-hop paper, Sec. 3, the builder).

A generator that returns several candidates per triple group (a seq2seq model's beams,
:meth:`graphhop.datasets.builder.Seq2SeqDataToText.candidates`, or :class:`TemplateVariantsDataToText`)
is wrapped by :class:`SelectingDataToText`: candidates that miss an entity of the group (the builder's
string-match check, :func:`~graphhop.datasets.builder.mentions_all_entities`) are dropped, and of the
rest the one with the best BERTScore F1 (:mod:`graphhop.metrics.bertscore`, bundled MiniLM) against the
linearized triples (``head relation tail; ...``, names cleaned) is kept; ties keep the earlier candidate.
When every candidate is dropped, the first is returned, so the builder's own check rejects it as before.
:attr:`SelectingDataToText.stats` counts the winners by candidate index and the drops.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol, Sequence

from graphhop.datasets.builder import TemplateDataToText, Triple, mentions_all_entities
from graphhop.kb.verbalize import clean_entity, clean_relation

__all__ = ["CandidateGenerator", "linearize_triples", "TemplateVariantsDataToText", "SelectingDataToText"]


class CandidateGenerator(Protocol):
    """Several candidate sentences per triple group."""

    def candidates(self, groups: Sequence[Sequence[Triple]]) -> list[list[str]]:
        """One list of candidates per group, in order."""
        ...


def linearize_triples(group: Sequence[Triple]) -> str:
    """The BERTScore reference: ``head relation tail`` per triple, joined by ``; `` (names cleaned)."""
    return "; ".join(f"{clean_entity(h)} {clean_relation(r)} {clean_entity(t)}" for h, r, t in group)


class TemplateVariantsDataToText:
    """Four template candidates per group (a generator of several candidates without a model):

    0. the relation templates in group order (what :class:`TemplateDataToText` writes);
    1. the relation templates in reverse order (the same as 0 for one triple);
    2. the relation names themselves: ``Amy has place of birth Paris and has spouse Bob.``;
    3. one sentence per triple, the head repeated: ``Amy was born in Paris. Amy is married to Bob.``
    """

    n_candidates = 4

    def __init__(self) -> None:
        self.templates = TemplateDataToText()

    def candidates(self, groups: Sequence[Sequence[Triple]]) -> list[list[str]]:
        out = []
        for group in groups:
            head = clean_entity(group[0][0])
            preds = [self.templates.predicate(r).format(tail=clean_entity(t)) for _, r, t in group]
            plain = [f"has {clean_relation(r)} {clean_entity(t)}" for _, r, t in group]
            out.append([_sentence(head, preds), _sentence(head, preds[::-1]), _sentence(head, plain),
                        " ".join(f"{head} {p}." for p in preds)])
        return out

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        """The first candidate of each group (the plain template output)."""
        return [c[0] for c in self.candidates(groups)]


def _sentence(head: str, preds: Sequence[str]) -> str:
    body = preds[0] if len(preds) == 1 else ", ".join(preds[:-1]) + " and " + preds[-1]
    return f"{head} {body}."


class SelectingDataToText:
    """A :class:`~graphhop.datasets.builder.DataToText` that checks and ranks a generator's candidates."""

    def __init__(self, generator: CandidateGenerator, scorer: Any = None) -> None:
        from graphhop.metrics.bertscore import BERTScorer

        self.generator = generator
        self.scorer = scorer or BERTScorer()
        self.stats: Counter[str] = Counter()

    def choose(self, group: Sequence[Triple], candidates: Sequence[str]) -> tuple[int, list[float]]:
        """Index of the kept candidate (``-1`` when all are dropped) and each candidate's F1 (``nan`` = dropped)."""
        return self.choose_many([group], [candidates])[0]

    def choose_many(self, groups: Sequence[Sequence[Triple]],
                    candidates: Sequence[Sequence[str]]) -> list[tuple[int, list[float]]]:
        """:meth:`choose` for many groups, with one batched BERTScore call."""
        pairs: list[tuple[int, int]] = []
        for g, (group, cands) in enumerate(zip(groups, candidates)):
            pairs += [(g, i) for i, c in enumerate(cands) if mentions_all_entities(c, group)]
        refs = [linearize_triples(group) for group in groups]
        prfs = self.scorer.score([candidates[g][i] for g, i in pairs], [refs[g] for g, _ in pairs]) if pairs else []
        f1 = [[float("nan")] * len(c) for c in candidates]
        for (g, i), prf in zip(pairs, prfs):
            f1[g][i] = prf.f1
        out = []
        for scores in f1:
            kept = [i for i, f in enumerate(scores) if f == f]
            out.append((max(kept, key=lambda i: (scores[i], -i)) if kept else -1, scores))
        return out

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        cands = self.generator.candidates(groups)
        out = []
        for c, (best, f1) in zip(cands, self.choose_many(groups, cands)):
            self.stats["groups"] += 1
            self.stats["candidates"] += len(c)
            self.stats["dropped"] += sum(f != f for f in f1)  # nan: failed the string match
            if best < 0:
                self.stats["all dropped"] += 1
                out.append(c[0] if c else "")
                continue
            self.stats[f"won by {best}"] += 1
            out.append(c[best])
        return out
