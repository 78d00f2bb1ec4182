"""Turning facts into text: DiFaR's ``head [SEP] relation [SEP] tail`` and name cleaning."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphhop.core import Fact

__all__ = ["clean_entity", "clean_relation", "normalize_question", "Verbalizer", "INVERSE_SUFFIX"]

INVERSE_SUFFIX = "_inverse"
_SPACES = re.compile(r"\s+")
_ENTITY_SEP = re.compile(r"[_]+|(?<=\w)-(?=\w)")
_RELATION_SEP = re.compile(r"[_./]+")


def clean_entity(name: str) -> str:
    """``frederica_of_mecklenburg-strelitz`` -> ``frederica of mecklenburg strelitz``."""
    return _SPACES.sub(" ", _ENTITY_SEP.sub(" ", name)).strip()


def clean_relation(name: str) -> str:
    """``place_of_birth`` -> ``place of birth``; Freebase ``__music__recording__tracks`` ->
    ``music recording tracks``. The ``_inverse`` suffix is kept off: see :meth:`Verbalizer.parts`."""
    if name.endswith(INVERSE_SUFFIX):
        name = name[: -len(INVERSE_SUFFIX)]
    return _SPACES.sub(" ", _RELATION_SEP.sub(" ", name)).strip()


def normalize_question(question: str) -> str:
    """Clean a question the way facts are cleaned, so entity names match.

    PathQuestion/WC2014 questions keep underscores (``sylvia_brett 's``); MetaQA marks the topic
    entity with brackets (``[Joel Zwick]``). Both are reduced to plain words.
    """
    q = question.replace("[", " ").replace("]", " ")
    return clean_entity(q)


@dataclass(frozen=True)
class Verbalizer:
    """Configurable fact verbalization.

    ``template`` receives ``head``, ``relation`` and ``tail``. With ``clean=True`` names are
    cleaned (:func:`clean_entity`, :func:`clean_relation`) and an ``x_inverse`` relation is read in
    its base direction: ``(Forward, plays_position_inverse, Abel)`` reads
    ``Abel [SEP] plays position [SEP] Forward``.
    """

    template: str = "{head} [SEP] {relation} [SEP] {tail}"
    clean: bool = True

    def parts(self, fact: Fact) -> tuple[str, str, str]:
        """The (head, relation, tail) strings as they will be written."""
        if not self.clean:
            return fact.head, fact.relation, fact.tail
        head, rel, tail = clean_entity(fact.head), clean_relation(fact.relation), clean_entity(fact.tail)
        if fact.relation.endswith(INVERSE_SUFFIX):
            head, tail = tail, head
        return head, rel, tail

    def __call__(self, fact: Fact) -> str:
        head, rel, tail = self.parts(fact)
        return self.template.format(head=head, relation=rel, tail=tail)

    def to_dict(self) -> dict[str, object]:
        """Options, for an index manifest."""
        return {"template": self.template, "clean": self.clean}
