"""KGQA datasets in their published formats: PathQuestion, WorldCup2014 and MetaQA.

Every loader returns :class:`~graphhop.core.QAExample` objects, one per distinct question text:
PQL and WC2014 repeat a question on several lines (one answer and path per line), and grouping them
is what makes per-question metrics reach 1. Triples keep the raw KB strings (underscores included).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from graphhop.core import Fact, InputError, QAExample, Triple
from graphhop.kb.store import TripleStore
from graphhop.kb.verbalize import INVERSE_SUFFIX

__all__ = [
    "DatasetSpec",
    "DATASETS",
    "data_root",
    "kb_path",
    "load_dataset",
    "load_pathquestion",
    "load_wc2014",
    "load_metaqa",
    "parse_path",
    "equivalent_triples",
    "gold_fact_ids",
    "metaqa_relation_chain",
    "metaqa_gold_paths",
]



@dataclass(frozen=True)
class DatasetSpec:
    """Where a dataset's files live below the data root, and which loader reads them."""

    name: str
    family: str  # pathquestion | wc2014 | metaqa
    questions: str  # file pattern with {split}
    kb: str
    hops: int = 0
    qtypes: str | None = None


DATASETS: dict[str, DatasetSpec] = {
    "pq-2h": DatasetSpec("pq-2h", "pathquestion", "pathquestion/PQ-2H.{split}.txt", "pathquestion/2H-kb.txt", 2),
    "pq-3h": DatasetSpec("pq-3h", "pathquestion", "pathquestion/PQ-3H.{split}.txt", "pathquestion/3H-kb.txt", 3),
    "pql-2h": DatasetSpec("pql-2h", "pathquestion", "pathquestion/PQL-2H.{split}.txt", "pathquestion/PQL2-KB.txt", 2),
    "pql-3h": DatasetSpec("pql-3h", "pathquestion", "pathquestion/PQL-3H.{split}.txt", "pathquestion/PQL3-KB.txt", 3),
    "pql-3h-more": DatasetSpec(
        "pql-3h-more", "pathquestion", "pathquestion/PQL-3H_more.{split}.txt", "pathquestion/PQL3-KB.txt", 3
    ),
    "wc-p1": DatasetSpec("wc-p1", "wc2014", "wc2014/WC-P1.{split}.txt", "wc2014/WC2014.txt", 1),
    "wc-p2": DatasetSpec("wc-p2", "wc2014", "wc2014/WC-P2.{split}.txt", "wc2014/WC2014.txt", 2),
    "wc-c": DatasetSpec("wc-c", "wc2014", "wc2014/WC-C.{split}.txt", "wc2014/WC2014.txt", 1),
    "metaqa-1h": DatasetSpec(
        "metaqa-1h", "metaqa", "metaqa/1-hop/qa_{split}.txt", "metaqa/kb.txt", 1, "metaqa/1-hop/qa_{split}_qtype.txt"
    ),
    "metaqa-2h": DatasetSpec(
        "metaqa-2h", "metaqa", "metaqa/2-hop/qa_{split}.txt", "metaqa/kb.txt", 2, "metaqa/2-hop/qa_{split}_qtype.txt"
    ),
    "metaqa-3h": DatasetSpec(
        "metaqa-3h", "metaqa", "metaqa/3-hop/qa_{split}.txt", "metaqa/kb.txt", 3, "metaqa/3-hop/qa_{split}_qtype.txt"
    ),
}


def data_root(path: str | Path | None = None) -> Path:
    """The benchmark data root: ``path``, else ``$GRAPHHOP_DATA``."""
    value = path or os.environ.get("GRAPHHOP_DATA")
    if not value:
        raise InputError("no data root: pass --data DIR or set GRAPHHOP_DATA")
    root = Path(value)
    if not root.is_dir():
        raise InputError(f"{root}: data root is not a directory")
    return root


def _spec(name: str) -> DatasetSpec:
    try:
        return DATASETS[name.lower()]
    except KeyError:
        raise InputError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}") from None


def kb_path(name: str, root: str | Path | None = None) -> Path:
    """The KB file a dataset's questions are asked over."""
    return data_root(root) / _spec(name).kb


def load_dataset(name: str, split: str = "dev", root: str | Path | None = None) -> list[QAExample]:
    """Load one split of a named dataset (see :data:`DATASETS`)."""
    spec = _spec(name)
    base = data_root(root)
    path = base / spec.questions.format(split=split)
    if spec.family == "pathquestion":
        return load_pathquestion(path, name=spec.name, hops=spec.hops)
    if spec.family == "wc2014":
        return load_wc2014(path, name=spec.name)
    qtypes = base / spec.qtypes.format(split=split) if spec.qtypes else None
    return load_metaqa(path, qtypes, hops=spec.hops, name=spec.name)


def parse_path(text: str, where: str = "") -> list[Triple]:
    """``h#r1#e1#r2#e2[#<end>#answer]`` -> ``[(h, r1, e1), (e1, r2, e2)]``."""
    tokens = text.strip().split("#")
    if "<end>" in tokens:
        tokens = tokens[: tokens.index("<end>")]
    if len(tokens) < 3 or len(tokens) % 2 == 0 or any(not t for t in tokens):
        raise InputError(f"{where}: malformed path {text[:80]!r} (expected h#r#t[#r#t...])")
    return [(tokens[i], tokens[i + 1], tokens[i + 2]) for i in range(0, len(tokens) - 2, 2)]


def _split_answers(field: str) -> list[str]:
    """``a(b/c/)`` -> ``[a, b, c]``; ``a/b/`` -> ``[a, b]``."""
    out: list[str] = []
    m = re.fullmatch(r"(.*?)\((.*)\)\s*", field)
    parts = [m.group(1), *m.group(2).split("/")] if m else field.split("/")
    for part in parts:
        part = part.strip()
        if part and part not in out:
            out.append(part)
    return out


def _open_lines(path: Path):
    from graphhop.kb.loaders import iter_lines

    if not path.is_file():
        raise InputError(f"{path}: no such file")
    for lineno, line in iter_lines(path):
        line = line.rstrip("\r\n")
        if line.strip():
            yield lineno, line


def _tsv_rows(path: Path, min_fields: int, what: str):
    """``(line number, tab-separated fields)`` of each non-blank line; fewer than ``min_fields`` fields is an error."""
    for lineno, line in _open_lines(path):
        fields = line.split("\t")
        if len(fields) < min_fields:
            raise InputError(f"{path}:{lineno}: expected {what} tab-separated fields, found {len(fields)}")
        yield lineno, fields


def _group(name: str, rows, hops: int) -> list[QAExample]:
    groups: "OrderedDict[str, QAExample]" = OrderedDict()
    for question, answers, paths in rows:
        ex = groups.get(question)
        if ex is None:
            ex = groups[question] = QAExample(f"{name}-{len(groups)}", question, [], qtype=name)
            ex.topic_entities = [paths[0][0][0]] if paths else []
        for a in answers:
            if a not in ex.answers:
                ex.answers.append(a)
        for path in paths:
            if path not in ex.gold_paths:
                ex.gold_paths.append(path)
                for t in path:
                    if t not in ex.gold_facts:
                        ex.gold_facts.append(t)
    for ex in groups.values():
        ex.hops = max((len(p) for p in ex.gold_paths), default=hops)
        for path in ex.gold_paths:
            if path[0][0] not in ex.topic_entities:
                ex.topic_entities.append(path[0][0])
    return list(groups.values())


def load_pathquestion(path: str | Path, name: str = "pathquestion", hops: int = 0) -> list[QAExample]:
    """PathQuestion (PQ/PQL): ``question \\t answer(alias/...) \\t h#r#e1#r2#e2[#<end>#answer]``."""
    path = Path(path)
    rows = []
    for lineno, fields in _tsv_rows(path, 3, "3"):
        rows.append((fields[0].strip(), _split_answers(fields[1]), [parse_path(fields[2], f"{path}:{lineno}")]))
    return _group(name, rows, hops)


def load_wc2014(path: str | Path, name: str = "wc2014") -> list[QAExample]:
    """WorldCup2014: ``question \\t answer \\t path[*path] \\t answers/ \\t local KB [\\t anchors]``.

    WC-C joins two chains with ``*``: both become gold paths (a multi-chain question).
    """
    path = Path(path)
    rows = []
    for lineno, fields in _tsv_rows(path, 4, "at least 4"):
        answers = [fields[1].strip()] + [a for a in _split_answers(fields[3]) if a != fields[1].strip()]
        paths = [parse_path(p, f"{path}:{lineno}") for p in fields[2].split("*")]
        rows.append((fields[0].strip(), answers, paths))
    return _group(name, rows, 1)


_TOPIC = re.compile(r"\[([^\]]+)\]")


def load_metaqa(
    path: str | Path, qtype_path: str | Path | None = None, hops: int = 0, name: str = "metaqa"
) -> list[QAExample]:
    """MetaQA: ``question with [topic entity] \\t ans1|ans2``; qtype file line-aligned.

    Gold facts are not in the data (see :func:`metaqa_gold_paths` to derive them).
    """
    path = Path(path)
    lines = list(_open_lines(path))
    qtypes: list[str] = []
    if qtype_path is not None:
        qtypes = [line.strip() for _, line in _open_lines(Path(qtype_path))]
        if len(qtypes) != len(lines):
            raise InputError(f"{qtype_path}: {len(qtypes)} question types for {len(lines)} questions in {path}")
    out = []
    for i, (lineno, line) in enumerate(lines):
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(f"{path}:{lineno}: expected 2 tab-separated fields, found {len(fields)}")
        m = _TOPIC.search(fields[0])
        if not m:
            raise InputError(f"{path}:{lineno}: no [topic entity] in the question")
        answers = [a for a in fields[1].split("|") if a]
        out.append(
            QAExample(
                f"{name}-{i}",
                fields[0].strip(),
                answers,
                hops=hops,
                qtype=qtypes[i] if qtypes else name,
                topic_entities=[m.group(1)],
            )
        )
    return out


def equivalent_triples(triple: Triple) -> list[Triple]:
    """A triple and its inverse reading: ``(x, r_inverse, y)`` is the same fact as ``(y, r, x)``.

    WC2014 stores most facts in both directions, so a gold step may be stored either way.
    """
    h, r, t = triple
    if r.endswith(INVERSE_SUFFIX):
        return [triple, (t, r[: -len(INVERSE_SUFFIX)], h)]
    return [triple, (t, r + INVERSE_SUFFIX, h)]


def gold_fact_ids(example: QAExample, store: TripleStore) -> set[str]:
    """Ids of the KB facts that state any gold triple of ``example`` (either direction)."""
    ids: set[str] = set()
    for triple in example.gold_facts:
        for t in equivalent_triples(triple):
            ids.update(store.ids(t))
    return ids


# MetaQA question types name entity types; each type pair is one relation from or to a movie.
_METAQA_RELATION = {
    "actor": "starred_actors",
    "writer": "written_by",
    "director": "directed_by",
    "year": "release_year",
    "genre": "has_genre",
    "language": "in_language",
    "tag": "has_tags",
    "tags": "has_tags",
    "imdbrating": "has_imdb_rating",
    "imdbvotes": "has_imdb_votes",
}


def metaqa_relation_chain(qtype: str) -> list[tuple[str, bool]]:
    """``director_to_movie_to_language`` -> ``[(directed_by, reversed), (in_language, forward)]``.

    Each step is ``(relation, forward)``; forward means walking head -> tail (movie -> attribute).
    """
    types = qtype.split("_to_")
    chain = []
    for a, b in zip(types, types[1:]):
        if a == "movie" and b in _METAQA_RELATION:
            chain.append((_METAQA_RELATION[b], True))
        elif b == "movie" and a in _METAQA_RELATION:
            chain.append((_METAQA_RELATION[a], False))
        else:
            raise InputError(f"MetaQA question type {qtype!r}: no relation for step {a} -> {b}")
    return chain


def metaqa_gold_paths(example: QAExample, store: TripleStore, max_paths: int = 200) -> list[list[Triple]]:
    """Derive gold paths: walk the qtype's relation chain from the topic entity; keep walks ending
    at a gold answer. Walks never revisit the topic entity (MetaQA excludes it from answers).
    Returns at most ``max_paths`` paths, in a deterministic order.
    """
    chain = metaqa_relation_chain(example.qtype)
    answers = set(example.answers)
    topic = example.topic_entities[0]
    frontier: list[tuple[str, list[Triple]]] = [(topic, [])]
    for relation, forward in chain:
        nxt: list[tuple[str, list[Triple]]] = []
        for entity, path in frontier:
            facts: list[Fact] = store.out_edges(entity, relation) if forward else store.in_edges(entity, relation)
            for f in facts:
                other = f.tail if forward else f.head
                if other == topic:
                    continue
                nxt.append((other, path + [f.triple]))
        frontier = nxt
    paths: list[list[Triple]] = []
    seen = set()
    for entity, path in frontier:
        key = tuple(path)
        if entity in answers and key not in seen:
            seen.add(key)
            paths.append(path)
            if len(paths) >= max_paths:
                break
    return paths
