"""What the walk reader's answers are: their type fit and how the text describes them (moved out of
:mod:`graphhop.read.walk`, unchanged).

:class:`AnswerTypes` is mixed into :class:`~graphhop.read.walk.WalkReader`: it reads ``self.graph`` (the
:class:`~graphhop.read.sentence_graph.SentenceGraph`), ``self.encoder`` and ``self.type_head``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence

from graphhop.kb.names import fold_name
from graphhop.read.numbers import is_number
from graphhop.read.sentence_graph import STOP, TOKEN, _clause_after, find_name, noun_key, word_key
from graphhop.read.text_forms import inside_names

if TYPE_CHECKING:
    from graphhop.read.walk import _State


class AnswerTypes:
    """The walk reader's answer typing (module docstring): type fits, descriptions, the trained type head."""

    graph: Any
    encoder: Any
    type_head: str
    _head: Any

    def _type_fits(self, question: str, states: Sequence[_State], types: frozenset[str]) -> dict[str, float]:
        """Each answer's fit to the question's answer type: 1 when a type noun of the question is in its
        name or description (:meth:`description`), else :func:`graphhop.read.candidates.type_fit`."""
        from graphhop.read.candidates import type_fit
        from graphhop.read.facts import answer_type

        wanted = answer_type(question)
        wanted_keys = frozenset(noun_key(w) for w in TOKEN.findall(wanted or "") if word_key(w) in types)
        last = {s.entity: s.edges[-1].sentence for s in reversed(states)}
        parts = {t: self.description_parts(t, sentence) for t, sentence in last.items()}
        described = {t: " ".join(p[:2]).strip() for t, p in parts.items()}
        cos = type_fit(self.encoder, wanted, question, [(t, f"{t} {d}") for t, d in described.items()], lambda c: "")
        if self.type_head != "off" and wanted and wanted != "year" and not question.lower().startswith("how many"):
            cos = self._head_fits(wanted, states, described, cos)
        fits = {t: 1.0 if _names_type(t, parts[t], wanted_keys) else c for t, c in zip(described, cos)}
        if wanted == "person":  # a person is named: a common noun in lower case (``the shore``) is none
            fits = {t: 0.0 if t == t.lower() and not is_number(t) else f for t, f in fits.items()}
        return fits

    def _head_fits(self, noun: str, states: Sequence[_State], described: dict[str, str], cos: list[float]) -> list[float]:
        """``type_head``: the trained type head's probability (:class:`~graphhop.kgqa.type_head.TextTypeFit`) of
        each non-numeric answer, read by the last edge's words and its description, replaces (``only``) or joins
        (``add``) the cosine fit."""
        from graphhop.kgqa.type_head import TextTypeFit

        if self._head is None:
            self._head = TextTypeFit(self.encoder)
        label = {s.entity: s.edges[-1].label or " ".join(sorted(s.edges[-1].words)) for s in reversed(states) if s.edges}
        out = []
        for (t, d), c in zip(described.items(), cos):
            if is_number(t):
                out.append(c)
                continue
            p = self._head.fit(noun, t, [(label.get(t, ""), False), (d, True)])
            out.append(p if self.type_head == "only" else c + p)
        return out

    def description(self, name: str, sentence: str = "") -> str:
        """How the text describes ``name``: the first clause after it in the passage titled with it
        (``Norvania is a northern country``) and its apposition in ``sentence`` (``Dovrik, a mountain village``)."""
        return " ".join(self.description_parts(name, sentence)[:2]).strip()

    def description_parts(self, name: str, sentence: str = "") -> tuple[str, str, str]:
        """The parts of :meth:`description` (the title passage's first clause, the apposition in ``sentence``) and
        the noun that names ``name`` just before it in ``sentence`` (``the kingdom of Lisse``, ``the river town of
        Sauvel``, ``the dramatist Ilse Varro``), which the text gives as what it is."""
        ids = self.graph.titles.get(fold_name(name), [])
        first = self.graph.sentences(ids[0])[0] if ids else ""
        at = find_name(sentence, name) if sentence else None
        named = _NAMED_BEFORE.search(sentence[: at[0]]) if at else None
        return _clause_after(first, name), _clause_after(sentence, name), (named.group(1) or named.group(2)) if named else ""

def _names_type(name: str, description: str | Sequence[str], type_keys: frozenset[str]) -> bool:
    """Whether a (non-numeric) name is of a type by its words (noun keys, :func:`noun_key`): a word of its
    description or of the name that is or ends with it (``Rijksmuseum``, ``Van Gogh Museum`` for ``museum``,
    ``a steamship`` for ``ship``); a description given in parts (:meth:`WalkReader.description_parts`) is read
    part by part, without the names it writes (``Relief boats for Skerrow Rock Lighthouse``: no lighthouse)."""
    if not type_keys or is_number(name):
        return False
    parts = (description,) if isinstance(description, str) else description  # a name inside a description is
    heads = [noun_key(w) for text in (name, *(inside_names(p) for p in parts)) for w in _heads(text)]  # another's
    return any(w == k or (w.endswith(k) and len(k) >= 4) for w in heads for k in type_keys)


def _heads(text: str) -> list[str]:
    """The words of ``text`` (lower case) that end a noun phrase (:func:`_is_head`): ``Kestrel Lighthouse Society`` ->
    ``society``, ``University of Verrin`` -> ``university``, ``verrin``."""
    words = TOKEN.findall(text.lower())
    return [w for w, nxt in zip(words, words[1:] + [""]) if w not in STOP and _is_head(nxt)]


#: ``the kingdom of <name>``, ``the river town of <name>``, ``the dramatist <name>``: a noun naming what the next name is.
#: ``of`` only after a preposition (``in the kingdom of``): ``is the capital of <name>`` names a relation, not a kind.
_NAMED_BEFORE = re.compile(r"(?:\b(?:in|of|at|from|near|to|into)\s+(?:the|a|an)\s+(?:[a-z]+\s+)?([a-z]+)\s+of"
                           r"|\b(?:[Tt]he|[Aa]n?)\s+(?:[a-z]+\s+)?([a-z]+))\s*$")


def _is_head(next_word: str) -> bool:
    """Whether the word before ``next_word`` ends its noun phrase (a ``bridge builder`` is no bridge)."""
    return not next_word or next_word in STOP or next_word.endswith(("ed", "ing")) or is_number(next_word)
