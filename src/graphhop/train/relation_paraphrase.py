"""Paraphrase pairs for the text relation matcher: a question's relation words and the names of its gold relations.

One relation is asked in many wordings across the shared train data (``couple`` / ``spouse``, ``films acted by`` /
``starred actors``, ``Who was in charge of`` / ``head of government``); each question paired with the *names* of
the relations its gold chain uses is a paraphrase example the verbalized-fact pairs of
:mod:`graphhop.train.text_relation` lack. Sources (train parts only):

- PathQuestion (PQ/PQL 2H, 3H) and WorldCup2014 (P1, P2, C) train questions and their gold paths;
- MetaQA: the **fit half** of dev (:func:`graphhop.kgqa.train.metaqa_part`; the report half is never read), the
  relation chain read from the question type (``director_to_movie_to_language``: ``directed by``, ``in language``),
  one question per wording (the topic masked);
- the KQA Pro sample: the questions whose program ``build-dataset kqapro --kb wc-c`` puts in **train**
  (:func:`graphhop.datasets.builder.kqapro_splits`; its dev is what ``benchmarks/qa_eval.py`` reports), with the
  relations and attributes their KoPL programs name;
- MuSiQue train decompositions: the ``X >> relation`` steps (Wikidata relation names) of each question.

The question side is what the walk reader sees (:func:`graphhop.read.sentence_graph.question_words`, surface
forms); the label side is the relation name as words (``place of birth``). Negatives (for the selection carve
and the loss): names of other relations of the same source.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Iterable, Sequence

from graphhop.train.text_relation import Pair, base_relation, held_out

__all__ = ["relation_name", "name_pairs", "NAME_SOURCES"]

NAME_SOURCES = ("pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c", "metaqa", "kqapro", "musique")

#: MetaQA's question types name the entity type at each end of a hop; the KB relation by the non-movie type.
METAQA_RELATIONS = {"director": "directed_by", "writer": "written_by", "actor": "starred_actors",
                    "year": "release_year", "language": "in_language", "genre": "has_genre", "tags": "has_tags",
                    "tag": "has_tags", "imdbrating": "has_imdb_rating", "imdbvotes": "has_imdb_votes"}

_KOPL_RELATION = re.compile(r"(?:Relate|QueryAttr|QueryAttrQualifier|QueryRelationQualifier|FilterStr|FilterNum|"
                            r"FilterYear|FilterDate|Select|SelectBetween|VerifyStr|VerifyNum|VerifyYear|VerifyDate)"
                            r"\(([^,()]+)")
_KOPL_NAMES = re.compile(r"(?:Find|FilterStr|FilterNum|FilterYear|FilterDate)\((?:[^,()]+,)?([^,()]+)")


def relation_name(relation: str) -> str:
    """A KB relation as words: ``__people__person__place_of_birth_inverse`` -> ``place of birth``; ``""`` for
    a name without words (``""``, ``__``)."""
    parts = [p for p in base_relation(relation).split("__") if p]
    return " ".join(parts[-1].replace(".", " ").replace("_", " ").split()).lower() if parts else ""


def _pair(question: str, topic: Sequence[str], relations: Iterable[str], seen: set) -> Pair | None:
    """A pair of ``question``'s relation words and ``relations``' names; None without words or when seen."""
    from graphhop.read.sentence_graph import _SURFACE, question_words

    words, _, _ = question_words(question, topic)
    names = list(dict.fromkeys(relation_name(r) for r in relations if relation_name(r)))
    key = (tuple(sorted(words)), tuple(names))
    if not words or not names or key in seen:
        return None
    seen.add(key)
    return Pair(tuple(sorted(_SURFACE.get(w, w) for w in words)), names, names, source="names")


def _kb_questions(name: str, root: str | Path | None, per_set: int) -> list[tuple[str, list[str], list[str]]]:
    """``(question, topic entities, gold relations)`` of a PQ/PQL/WC train split (strided) or MetaQA's fit half."""
    from graphhop.datasets.kgqa import load_dataset
    from graphhop.kb.verbalize import clean_entity, normalize_question
    from graphhop.kgqa.train import metaqa_part

    out = []
    if name == "metaqa":
        for hops in ("1h", "2h", "3h"):
            for ex in load_dataset(f"metaqa-{hops}", "dev", root):
                if metaqa_part(ex.question) != "fit":
                    continue
                ends = ex.qtype.split("_to_")
                rels = [METAQA_RELATIONS.get(e) for e in ends if e != "movie"]
                if all(rels):
                    out.append((normalize_question(ex.question), list(ex.topic_entities), rels))
        return out
    examples = load_dataset(name, "train", root)
    stride = max(1, len(examples) // per_set)
    for ex in examples[::stride][:per_set]:
        if ex.gold_paths:
            topic = [clean_entity(ex.gold_paths[0][0][0])] + [clean_entity(t) for t in ex.topic_entities]
            rels = [t[1] for path in ex.gold_paths for t in path]
            out.append((normalize_question(ex.question), topic, rels))
    return out


def _kqapro_questions(root: str | Path | None, kb: str = "wc-c") -> list[tuple[str, list[str], list[str]]]:
    """``(question, topic names, relations)`` of the sample's programs that ``build-dataset kqapro --kb kb`` puts
    in train (never its dev or test); names that strip to nothing are skipped."""
    from graphhop.datasets.builder import KQAPRO_PROGRAMS, kqapro_splits
    from graphhop.datasets.kgqa import data_root
    from graphhop.datasets.kqapro import load_programs

    path = data_root(root) / KQAPRO_PROGRAMS
    split = kqapro_splits(kb, root, programs=path)
    out = []
    for prog, ex in zip(load_programs(path), json.loads(path.read_text(encoding="utf-8"))):
        if split.get(prog.id) != "train":
            continue
        program = ex.get("kopl", "")
        out.append((ex["question"], [m.strip() for m in _KOPL_NAMES.findall(program) if m.strip()],
                    [m.strip() for m in _KOPL_RELATION.findall(program) if m.strip()]))
    return out


def _musique_questions(root: str | Path | None) -> list[tuple[str, list[str], list[str]]]:
    from graphhop.datasets.kgqa import data_root

    path = data_root(root) / "musique" / "musique_sample.train.json"
    out = []
    for ex in json.loads(path.read_text(encoding="utf-8")):
        steps = ex["question_decomposition"]
        rels = [s["question"].split(">>", 1)[1].strip() for s in steps if ">>" in s["question"]]
        topic = [s["question"].split(">>", 1)[0].strip() for s in steps if ">>" in s["question"]]
        if rels:
            out.append((ex["question"], [t for t in topic if not t.startswith("#")] + [s["answer"] for s in steps], rels))
    return out


def name_pairs(root: str | Path | None = None, sources: Sequence[str] = NAME_SOURCES, per_set: int = 1500,
               seed: int = 0, negatives: int = 8) -> list[Pair]:
    """One :class:`Pair` per distinct (relation words, relation names) of the sources (module docstring), each
    with ``negatives`` names of other relations of its source (deterministic by ``seed``)."""
    pairs: list[Pair] = []
    for source in sources:
        if source == "kqapro":
            items = _kqapro_questions(root)
        elif source == "musique":
            items = _musique_questions(root)
        else:
            items = _kb_questions(source, root, per_set)
        seen: set = set()
        made = [p for p in (_pair(q, t, r, seen) for q, t, r in items) if p is not None]
        names = sorted({n for p in made for n in p.labels})
        rng = random.Random(f"{seed}|{source}")
        for p in made:  # a pair of trained relations only never sees a held-out name, even as a negative
            carve = any(held_out(n) for n in p.labels)
            others = [n for n in names if n not in p.labels and (carve or not held_out(n))]
            p.negatives = rng.sample(others, min(negatives, len(others)))
        pairs += made
    return pairs
