"""Multi-hop text QA samples in their published formats: HotpotQA, MuSiQue, EntailmentBank task 3.

Every loader returns :class:`TextQAExample` objects whose gold evidence is given as *passage ids of
the corpus the questions are asked over*, the ids :func:`graphhop.kb.loaders.iter_passages` gives:

- HotpotQA (``hotpotqa_sample.*.json``, corpus ``title -> [sentences]``): the id is the title, so
  the gold ids are the titles of the supporting facts (in their first-mention order).
- MuSiQue (``musique_sample.*.json``, corpus ``[{title, text}]``): the id is the position in the
  corpus list; supporting paragraphs are matched to it by exact ``(title, text)``. The gold order
  follows the question decomposition (``paragraph_support_idx``), i.e. the reasoning chain.
- EntailmentBank task 3 (``task_3/dev.jsonl`` over the WorldTree corpus ``uuid -> sentence``): the
  task-3 file has no proof, so the tree is read from the task-1 file of the same split (same ids);
  gold = the tree's leaf sentences, mapped to corpus uuids by ``worldtree_provenance``, else by exact
  sentence text. Leaves that are in neither (question-specific facts such as "it is august") are
  counted in ``unmapped`` and cannot be retrieved by any method.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from graphhop.core import InputError, Passage
from graphhop.kb.loaders import iter_jsonl, iter_passages, read_json

__all__ = [
    "TextQAExample",
    "load_hotpotqa",
    "load_musique",
    "load_entailmentbank_task3",
    "iter_worldtree",
    "load_text_dataset",
    "TEXT_DATASETS",
]


@dataclass(slots=True)
class TextQAExample:
    """One multi-hop question over a passage corpus.

    ``gold`` holds corpus passage ids in reasoning order when the dataset gives one (MuSiQue's
    decomposition), else in the dataset's order; ``gold_titles`` is aligned with it. ``qtype`` is
    ``bridge``/``comparison`` (HotpotQA), the hop pattern (MuSiQue: ``2hop``, ``3hop1`` …) or
    ``entailment`` (EntailmentBank). ``ordered`` says whether ``gold`` is a known chain order. ``hypothesis``: EntailmentBank's
    hypothesis (question + answer as a statement, a task input), else empty.
    """

    id: str
    question: str
    answer: str
    gold: list[str]
    gold_titles: list[str]
    qtype: str = ""
    dataset: str = ""
    answers: list[str] = field(default_factory=list)
    ordered: bool = False
    unmapped: int = 0
    hypothesis: str = ""

    @property
    def hops(self) -> int:
        """Number of gold passages (the hop count of the reasoning chain)."""
        return len(self.gold) + self.unmapped


def _field(obj: Any, key: str, where: str, kind: type | tuple[type, ...] = str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise InputError(f"{where}: field {key!r} has type {type(value).__name__}")
    return value


def _example(row: dict[str, Any], qid: str, where: str, answer: str, answers: list[str], gold: list[str],
             gold_titles: list[str], **extra: Any) -> TextQAExample:
    """One loaded question (its text read from ``row``, errors naming ``where``)."""
    return TextQAExample(id=qid, question=_field(row, "question", where), answer=answer, answers=answers, gold=gold,
                         gold_titles=gold_titles, **extra)


def load_hotpotqa(path: str | Path, corpus: str | Path | None = None) -> list[TextQAExample]:
    """HotpotQA questions (a JSON list with ``_id``, ``question``, ``answer``, ``type``, ``supporting_facts``).

    With ``corpus`` (default: ``hotpotqa_corpus.json`` next to ``path`` when it exists), a gold title
    missing from the corpus raises :class:`InputError`.
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of questions")
    corpus_path = Path(corpus) if corpus is not None else path.with_name("hotpotqa_corpus.json")
    titles: set[str] | None = None
    if corpus is not None or corpus_path.exists():
        titles = {p.id for p in iter_passages(corpus_path)}
    out = []
    for i, row in enumerate(data):
        where = f"{path}: item {i}"
        qid = str(_field(row, "_id", where))
        facts = _field(row, "supporting_facts", where, list)
        gold: list[str] = []
        for j, fact in enumerate(facts):
            if not isinstance(fact, list) or not fact or not isinstance(fact[0], str):
                raise InputError(f"{where}: supporting_facts[{j}] is not [title, sentence]")
            if fact[0] not in gold:
                gold.append(fact[0])
        if titles is not None:
            missing = [t for t in gold if t not in titles]
            if missing:
                raise InputError(f"{where}: gold title {missing[0]!r} is not in the corpus {corpus_path}")
        answer = str(_field(row, "answer", where))
        out.append(_example(row, qid, where, answer, [answer], gold, list(gold), qtype=str(row.get("type", "")),
                            dataset="hotpotqa"))
    return out


def load_musique(path: str | Path, corpus: str | Path | None = None) -> list[TextQAExample]:
    """MuSiQue questions (a JSON list, or JSONL, with ``paragraphs`` and ``question_decomposition``).

    ``corpus`` (default: ``musique_corpus.json`` next to ``path``) is needed to turn supporting
    paragraphs into corpus ids.
    """
    path = Path(path)
    corpus_path = Path(corpus) if corpus is not None else path.with_name("musique_corpus.json")
    if not corpus_path.exists():
        raise InputError(f"{corpus_path}: MuSiQue corpus not found (pass corpus=...)")
    ids: dict[tuple[str, str], str] = {}
    for p in iter_passages(corpus_path):
        ids.setdefault((p.title or "", p.text), p.id)
    if path.suffix == ".jsonl":
        data = [row for _, row in iter_jsonl(path)]
    else:
        data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of questions")
    out = []
    for i, row in enumerate(data):
        where = f"{path}: item {i}"
        qid = str(_field(row, "id", where))
        paragraphs = _field(row, "paragraphs", where, list)
        by_idx = {}
        for j, para in enumerate(paragraphs):
            pw = f"{where}: paragraphs[{j}]"
            by_idx[int(_field(para, "idx", pw, int))] = para
        support = [int(_field(para, "idx", where, int)) for para in paragraphs if para.get("is_supporting")]
        order = [d.get("paragraph_support_idx") for d in row.get("question_decomposition", [])]
        chain = [s for s in order if isinstance(s, int) and s in support]
        ordered = sorted(set(chain)) == sorted(support) and len(chain) == len(support)
        idxs = list(dict.fromkeys(chain)) if ordered else support
        gold, titles = [], []
        for s in idxs:
            para = by_idx[s]
            key = (_field(para, "title", where), _field(para, "paragraph_text", where))
            if key not in ids:
                raise InputError(f"{where}: supporting paragraph {s} ({key[0]!r}) is not in the corpus {corpus_path}")
            gold.append(ids[key])
            titles.append(key[0])
        answer = str(_field(row, "answer", where))
        aliases = [str(a) for a in row.get("answer_aliases", [])]
        out.append(_example(row, qid, where, answer, [answer, *aliases], gold, titles,
                            qtype=qid.split("__", 1)[0] if "__" in qid else "", dataset="musique", ordered=ordered))
    return out


def iter_worldtree(path: str | Path) -> Iterator[Passage]:
    """WorldTree sentences (``uuid -> sentence``) as untitled passages with the uuid as id.

    The ``ET_addon:0`` placeholder (``DUMMY``) is skipped.
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object uuid -> sentence")
    for uuid, text in data.items():
        if not isinstance(text, str):
            raise InputError(f"{path}: field {uuid!r}: expected a sentence string")
        if text.strip() and text != "DUMMY":
            yield Passage(uuid, text, None)


def _norm_sentence(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


def load_entailmentbank_task3(
    path: str | Path, corpus: str | Path | None = None, trees: str | Path | None = None
) -> list[TextQAExample]:
    """EntailmentBank task-3 questions; gold = leaf sentences of the entailment tree (WorldTree uuids).

    ``trees`` defaults to ``../task_1/<same file name>`` (the task-1 file carries the proof and the
    uuid provenance of each ``sentN``); ``corpus`` to ``../worldtree_corpus_sentences_extended.json``.
    """
    path = Path(path)
    trees_path = Path(trees) if trees is not None else path.parent.parent / "task_1" / path.name
    corpus_path = Path(corpus) if corpus is not None else path.parent.parent / "worldtree_corpus_sentences_extended.json"
    sentences = {p.id: p.text for p in iter_worldtree(corpus_path)}
    by_text: dict[str, str] = {}
    for uuid, text in sentences.items():
        by_text.setdefault(_norm_sentence(text), uuid)
    tree_rows: dict[str, dict] = {}
    for lineno, row in iter_jsonl(trees_path):
        tree_rows[str(_field(row, "id", f"{trees_path}:{lineno}"))] = row
    out = []
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        qid = str(_field(row, "id", where))
        tree = tree_rows.get(qid)
        if tree is None:
            raise InputError(f"{where}: question {qid!r} has no entailment tree in {trees_path}")
        tw = f"{trees_path}: id {qid}"
        proof = _field(tree, "proof", tw)
        meta = _field(tree, "meta", tw, dict)
        prov = meta.get("worldtree_provenance", {}) or {}
        triples = meta.get("triples", {}) or {}
        gold: list[str] = []
        unmapped = 0
        for sid in dict.fromkeys(re.findall(r"\bsent\d+\b", proof)):
            uuid = (prov.get(sid) or {}).get("uuid") if isinstance(prov, dict) else None
            if not uuid or uuid not in sentences:
                uuid = by_text.get(_norm_sentence(str(triples.get(sid, ""))))
            if uuid and uuid in sentences:
                if uuid not in gold:
                    gold.append(uuid)
            else:
                unmapped += 1
        answer = str(row.get("answer", ""))
        out.append(_example(row, qid, where, answer, [answer], gold, [sentences[g] for g in gold], qtype="entailment",
                            dataset="entailmentbank", unmapped=unmapped, hypothesis=str(row.get("hypothesis", ""))))
    return out


#: name -> (questions file pattern relative to the data root, corpus file)
TEXT_DATASETS: dict[str, tuple[str, str]] = {
    "hotpotqa": ("hotpotqa/hotpotqa_sample.{split}.json", "hotpotqa/hotpotqa_corpus.json"),
    "musique": ("musique/musique_sample.{split}.json", "musique/musique_corpus.json"),
    "entailmentbank": ("entailmentbank/task_3/{split}.jsonl", "entailmentbank/worldtree_corpus_sentences_extended.json"),
}


def load_text_dataset(name: str, split: str, root: str | Path) -> tuple[list[TextQAExample], Path]:
    """Load ``split`` of ``hotpotqa``/``musique``/``entailmentbank`` under ``root``; returns (examples, corpus path)."""
    if name not in TEXT_DATASETS:
        raise InputError(f"unknown text dataset {name!r}; choose one of {', '.join(TEXT_DATASETS)}")
    qpat, cpath = TEXT_DATASETS[name]
    root = Path(root)
    qfile, corpus = root / qpat.format(split=split), root / cpath
    if not qfile.exists():
        raise InputError(f"{qfile}: no such file (split {split!r} of {name})")
    if name == "hotpotqa":
        return load_hotpotqa(qfile, corpus), corpus
    if name == "musique":
        return load_musique(qfile, corpus), corpus
    return load_entailmentbank_task3(qfile, corpus), corpus
