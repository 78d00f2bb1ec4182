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
#: an IRI (``http://dbpedia.org/ontology/birthPlace``, ``<...#bornIn>``), a CURIE (``dbo:birthPlace``) or a
#: URN (``urn:ex:bornIn``, any number of ``:`` segments): its local name (last segment) is the relation's name
_IRI = re.compile(r"^<?[a-z][\w+.-]*://\S*?([^/#>]+)/?>?$", re.IGNORECASE)
_CURIE = re.compile(r"^[a-z][\w.-]*(?::[\w.-]+)*:([a-z_]\w*)$", re.IGNORECASE)
#: a camelCase / PascalCase word (``bornIn``, ``placeOfBirth``, ``AtLocation``): a lower-case run of 2+
#: letters then a capital, or 2+ capitalized words; where its words are cut
_CAMEL = re.compile(r"^(?:[a-z]{2,}[a-z0-9]*[A-Z][A-Za-z0-9]*|(?:[A-Z][a-z]+){2,})$")
_CAMEL_CUT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
#: punctuation inside a label read as a word break (``editor-in-chief``, ``work period (start)``,
#: ``x(y)z`` -> ``x y z``; a bracket not between two word characters is dropped); only a plural marker right
#: after a word is kept on it (``crew member(s)`` -> ``crew members``)
_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
_PLURAL = re.compile(r"(?<=[a-z])\((e?s)\)(?![^\W_])", re.IGNORECASE)
_BRACKETS = re.compile(r"[()\[\]{}]")
_BRACKETS_IN_WORD = re.compile(r"(?<=\w)[()\[\]{}]+(?=\w)")


def clean_entity(name: str) -> str:
    """``frederica_of_mecklenburg-strelitz`` -> ``frederica of mecklenburg strelitz``."""
    return _SPACES.sub(" ", _ENTITY_SEP.sub(" ", name)).strip()


def clean_relation(name: str) -> str:
    """``place_of_birth`` -> ``place of birth``; Freebase ``__music__recording__tracks`` ->
    ``music recording tracks``. The ``_inverse`` suffix is kept off: see :meth:`Verbalizer.parts`.
    Names as other KBs write them read the same: an IRI or CURIE by its local name
    (``http://dbpedia.org/ontology/birthPlace``, ``dbo:birthPlace``, ``urn:ex:birthPlace`` -> ``birth place``), camelCase and
    PascalCase cut into lower-case words (``bornIn`` -> ``born in``, ``AtLocation`` -> ``at location``; only a
    name with no space or underscore, so ``GitHub_username`` stays), ``editor-in-chief`` ->
    ``editor in chief``, brackets a word break (``x(y)z`` -> ``x y z``) but ``crew member(s)`` -> ``crew members``."""
    if name.endswith(INVERSE_SUFFIX):
        name = name[: -len(INVERSE_SUFFIX)]
    iri = _IRI.match(name) or _CURIE.match(name)
    if iri and " " not in name:
        name = iri.group(1)
    if not re.search(r"[\s_]", name):
        name = " ".join(_camel_words(w) for w in _RELATION_SEP.split(name))
    name = _BRACKETS.sub("", _BRACKETS_IN_WORD.sub(" ", _PLURAL.sub(r"\1", _HYPHEN.sub(" ", name))))
    return _SPACES.sub(" ", _RELATION_SEP.sub(" ", name)).strip()


def _camel_words(word: str) -> str:
    """``placeOfBirth`` -> ``place of birth`` (acronyms kept: ``hasISBN`` -> ``has ISBN``); other words unchanged."""
    if not _CAMEL.match(word):
        return word
    return " ".join(w if w.isupper() else w.lower() for w in _CAMEL_CUT.split(word))


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
