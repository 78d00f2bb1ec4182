"""Data-to-text for the dataset builder: one sentence per group of triples sharing a head.

:class:`TemplateDataToText` (relation templates, the default) or :class:`Seq2SeqDataToText` (a
WebNLG-style seq2seq model); :func:`mentions_all_entities` is the check every sentence must pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from graphhop.core import GraphhopError, Triple
from graphhop.kb.verbalize import INVERSE_SUFFIX, clean_entity, clean_relation

__all__ = ["RELATION_TEMPLATES", "DataToText", "TemplateDataToText", "Seq2SeqDataToText", "mentions_all_entities"]

#: Predicate phrases per relation (the subject is the head); ``{tail}`` is the tail entity.
RELATION_TEMPLATES: dict[str, str] = {
    # PathQuestion (PQ)
    "gender": "is of gender {tail}",
    "children": "has a child named {tail}",
    "parents": "has a parent named {tail}",
    "spouse": "is married to {tail}",
    "nationality": "has the nationality {tail}",
    "profession": "works as {tail}",
    "cause_of_death": "died of {tail}",
    "religion": "follows the religion {tail}",
    "place_of_death": "died in {tail}",
    "place_of_birth": "was born in {tail}",
    "institution": "studied at {tail}",
    "location": "is located in {tail}",
    "ethnicity": "is of {tail} ethnicity",
    # WorldCup2014
    "wears_number": "wears number {tail}",
    "plays_position": "plays in the position {tail}",
    "plays_position_inverse": "is the position of {tail}",
    "plays_in_club": "plays for the club {tail}",
    "plays_in_club_inverse": "is the club of {tail}",
    "plays_for_country": "plays for the national team of {tail}",
    "plays_for_country_inverse": "is the country of the player {tail}",
    "is_aged": "is {tail} years old",
    "is_in_country": "is located in {tail}",
    "is_in_country_inverse": "is the country of the club {tail}",
    # MetaQA (WikiMovies)
    "directed_by": "was directed by {tail}",
    "written_by": "was written by {tail}",
    "starred_actors": "stars {tail}",
    "release_year": "was released in {tail}",
    "in_language": "is in the language {tail}",
    "has_tags": "is tagged with {tail}",
    "has_genre": "has the genre {tail}",
    "has_imdb_votes": "has {tail} IMDb votes",
    "has_imdb_rating": "has an IMDb rating of {tail}",
}


def _generic_predicate(relation: str) -> str:
    """A template for an unknown relation: Freebase ``__people__person__gender`` -> ``has gender {tail}``."""
    inverse = relation.endswith(INVERSE_SUFFIX)
    name = relation.rsplit("__", 1)[-1] if "__" in relation.strip("_") else relation
    words = clean_relation(name + (INVERSE_SUFFIX if inverse else "")) or clean_relation(relation)
    return f"is the {words} of {{tail}}" if inverse else f"has {words} {{tail}}"


class DataToText(Protocol):
    """Turns groups of triples (one group = one sentence, all with the same head) into sentences."""

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        """One sentence per group, in order."""
        ...


@dataclass
class TemplateDataToText:
    """Relation templates: ``(m, directed_by, d) + (m, release_year, 1999)`` ->
    ``m was directed by d and was released in 1999.`` Names are cleaned (:func:`clean_entity`)."""

    templates: dict[str, str] = field(default_factory=lambda: dict(RELATION_TEMPLATES))

    def predicate(self, relation: str) -> str:
        """The predicate template of ``relation`` (a generic one when unknown)."""
        return self.templates.get(relation) or _generic_predicate(relation)

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        out = []
        for group in groups:
            if not group:
                raise GraphhopError("cannot verbalize an empty triple group")
            preds = [self.predicate(r).format(tail=clean_entity(t)) for _, r, t in group]
            body = preds[0] if len(preds) == 1 else ", ".join(preds[:-1]) + " and " + preds[-1]
            out.append(f"{clean_entity(group[0][0])} {body}.")
        return out


class Seq2SeqDataToText:
    """A data-to-text seq2seq model by Hugging Face name or local path (e.g. a T5 fine-tuned on
    WebNLG). Input per group: ``prompt + "<H> h <R> r <T> t <H> ..."`` with cleaned names.
    Loaded lazily on first use; offline unless the model is cached or local. :meth:`candidates` gives
    ``num_candidates`` beams per group (for :class:`graphhop.datasets.selection.SelectingDataToText`)."""

    def __init__(self, model: str, batch_size: int = 16, max_new_tokens: int = 96,
                 prompt: str = "translate Graph to English: ", num_beams: int = 1, num_candidates: int = 1) -> None:
        self.model_name = model
        self.num_candidates = num_candidates
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.prompt = prompt
        self.num_beams = num_beams
        self._tok: Any = None
        self._model: Any = None

    @staticmethod
    def linearize(group: Sequence[Triple]) -> str:
        """``<H> head <R> relation <T> tail`` for each triple (WebNLG style)."""
        return " ".join(f"<H> {clean_entity(h)} <R> {clean_relation(r)} <T> {clean_entity(t)}" for h, r, t in group)

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        try:
            self._tok = AutoTokenizer.from_pretrained(self.model_name)
            self._model = AutoModelForSeq2SeqLM.from_pretrained(self.model_name).eval()
        except OSError as exc:
            raise GraphhopError(f"cannot load data-to-text model {self.model_name!r}: {str(exc).splitlines()[0]}") from None

    def verbalize(self, groups: Sequence[Sequence[Triple]]) -> list[str]:
        return [c[0] for c in self.candidates(groups, 1)]

    def candidates(self, groups: Sequence[Sequence[Triple]], n: int | None = None) -> list[list[str]]:
        """The ``n`` best beams per group (default ``num_candidates``; beam width at least ``n``), best first."""
        import torch

        n = n or self.num_candidates
        self._load()
        out: list[list[str]] = []
        for i in range(0, len(groups), self.batch_size):
            batch = [self.prompt + self.linearize(g) for g in groups[i : i + self.batch_size]]
            enc = self._tok(batch, return_tensors="pt", padding=True, truncation=True)
            with torch.no_grad():
                # only ids and mask: some tokenizers add token_type_ids, which seq2seq models reject
                ids = self._model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                           max_new_tokens=self.max_new_tokens, num_beams=max(self.num_beams, n),
                                           num_return_sequences=n, do_sample=False)
            texts = [s.strip() for s in self._tok.batch_decode(ids, skip_special_tokens=True)]
            out.extend(texts[j : j + n] for j in range(0, len(texts), n))
        return out


def mentions_all_entities(sentence: str, group: Sequence[Triple]) -> bool:
    """True when every (cleaned) head and tail of ``group`` occurs in ``sentence``, case-insensitively."""
    text = " ".join(sentence.lower().split())
    return all(clean_entity(e).lower() in text for h, _, t in group for e in (h, t))
