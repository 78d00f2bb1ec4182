"""EntailmentBank (Dalvi et al. 2021): entailment trees as evidence graphs, WorldTree as a text DB.

An entailment tree proves the hypothesis (question + answer as a statement) from leaf sentences
through intermediate conclusions. As an :class:`~graphhop.graph.EvidenceGraph` (edges along the
reasoning, question -> ... -> answer-bearing evidence):

* ``Q -> sentK`` for every leaf sentence used by the proof (kind ``evidence``);
* ``premise -> conclusion`` for each proof step ``sent1 & int1 -> int2`` (kind ``intermediate``);
* the ``hypothesis`` node (kind ``hypothesis``, the answer-bearing sink) concludes the last step.

So every chain runs from a leaf sentence to the hypothesis; a tree with k leaf sentences has k
chains. Text evidence has no KG triples: the graph is built with ``text_evidence=True``.

Supported files: the task 1-3 ``dev.jsonl`` of the v2 dataset (task 3 has no proof: its trees are
taken from task 1 by question id and its leaves are matched to the task-3 sentences by text) and
the "angles" ``{train,dev}.jsonl`` (``$question$ = ... ; $context$ = sent1: ...`` inputs, the
proof in the output).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from graphhop.core import InputError, Passage
from graphhop.graph import EvidenceGraph
from graphhop.kb.loaders import iter_jsonl, read_json

__all__ = [
    "ProofStep",
    "EntailmentTree",
    "parse_proof",
    "parse_context",
    "load_entailmentbank",
    "load_angles",
    "load_worldtree",
    "tree_record",
]

_SENT = re.compile(r"(sent\d+):\s*")
_STEP = re.compile(
    r"\s*((?:(?:sent|int)\d+\s*&\s*)*(?:sent|int)\d+)\s*->\s*(hypothesis|int\d+)(?:\s*:\s*(.*?))?\s*;\s*"
    r"(?=(?:sent|int)\d+\s*(?:&|->)|$)",
    re.S,
)
_ANGLE_SLOT = re.compile(r"\$(\w+)\$\s*=\s*")


@dataclass(frozen=True)
class ProofStep:
    """One entailment step: ``premises -> conclusion`` (``int``\\ N or ``hypothesis``)."""

    premises: tuple[str, ...]
    conclusion: str
    text: str = ""


@dataclass
class EntailmentTree:
    """One EntailmentBank question with its context sentences and its proof."""

    id: str
    question: str
    answer: str
    hypothesis: str
    context: dict[str, str]
    steps: list[ProofStep]
    intermediates: dict[str, str] = field(default_factory=dict)
    distractors: list[str] = field(default_factory=list)
    depth: int = 0
    task: str = ""

    def leaves(self) -> list[str]:
        """Sentence ids used by the proof, in first-use order."""
        return list(dict.fromkeys(p for s in self.steps for p in s.premises if not p.startswith("int")))

    def graph(self) -> EvidenceGraph:
        """The tree as an evidence graph (see the module docstring)."""
        g = EvidenceGraph(self.question, text_evidence=True)
        for sid in self.leaves():
            g.add_evidence(sid, self.context.get(sid, ""), kind="evidence")
            g.add_edge(g.root, sid)
        for step in self.steps:
            concl = step.conclusion
            if concl == "hypothesis":
                g.add_evidence(concl, self.hypothesis, kind="hypothesis")
            else:
                g.add_evidence(concl, step.text or self.intermediates.get(concl, ""), kind="intermediate")
        for step in self.steps:
            for p in step.premises:
                if p not in g.g:  # a premise never concluded and not a sentence: keep it visible
                    g.add_evidence(p, self.intermediates.get(p, ""), kind="intermediate")
                g.add_edge(p, step.conclusion)
        return g


def parse_proof(proof: str, where: str = "proof") -> list[ProofStep]:
    """``"sent1 & sent2 -> int1: text; int1 & sent3 -> hypothesis; "`` -> steps."""
    text = proof.strip()
    if not text:
        return []
    if not text.endswith(";"):
        text += ";"
    steps: list[ProofStep] = []
    pos = 0
    for m in _STEP.finditer(text):
        if m.start() != pos:
            raise InputError(f"{where}: cannot parse proof near {text[pos:pos + 60]!r}")
        premises = tuple(p.strip() for p in m.group(1).split("&"))
        steps.append(ProofStep(premises, m.group(2), (m.group(3) or "").strip()))
        pos = m.end()
    if pos != len(text):
        raise InputError(f"{where}: cannot parse proof near {text[pos:pos + 60]!r}")
    return steps


def parse_context(context: str) -> dict[str, str]:
    """``"sent1: a b sent2: c"`` -> ``{"sent1": "a b", "sent2": "c"}``."""
    parts = _SENT.split(context)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _field(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise InputError(f"{where}: missing field {key!r}")
    return obj[key]


def load_entailmentbank(path: str | Path, trees_from: str | Path | None = None) -> list[EntailmentTree]:
    """Load a v2 ``task_N/dev.jsonl``.

    Task 3 records carry no proof; pass ``trees_from`` (the task 1 file) to take each question's
    tree from there: its leaves are matched to task-3 sentences with the same text, and a leaf
    missing from the task-3 context keeps its task-1 text under the id ``gold:sentK``.
    """
    path = Path(path)
    task = path.parent.name
    reference = {t.id: t for t in load_entailmentbank(trees_from)} if trees_from else {}
    out: list[EntailmentTree] = []
    for lineno, obj in iter_jsonl(path):
        where = f"{path}:{lineno}"
        try:
            tree, steps = _record_tree(obj, where, task)
        except (AttributeError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: malformed EntailmentBank record ({exc})") from None
        if not steps and tree.id in reference:
            tree = _transfer_tree(reference[tree.id], tree)
        out.append(tree)
    return out


def _record_tree(obj: dict[str, Any], where: str, task: str) -> tuple[EntailmentTree, list]:
    """One JSONL record as a tree (and its parsed proof steps); odd field types raise TypeError/ValueError."""
    meta = obj.get("meta", {}) or {}
    context = meta.get("triples") or parse_context(str(_field(obj, "context", where)))
    steps = parse_proof(str(obj.get("proof", "")), where)
    tree = EntailmentTree(
        id=str(_field(obj, "id", where)),
        question=str(_field(obj, "question", where)),
        answer=str(obj.get("answer", "")),
        hypothesis=str(_field(obj, "hypothesis", where)),
        context=dict(context),
        steps=steps,
        intermediates=dict(meta.get("intermediate_conclusions", {}) or {}),
        distractors=list(meta.get("distractors", []) or []),
        depth=int(obj.get("depth_of_proof", 0) or 0),
        task=task,
    )
    return tree, steps


def _transfer_tree(ref: EntailmentTree, tree: EntailmentTree) -> EntailmentTree:
    by_text: dict[str, str] = {}
    for sid, text in tree.context.items():
        by_text.setdefault(" ".join(text.lower().split()), sid)
    rename: dict[str, str] = {}
    for sid in ref.leaves():
        key = " ".join(ref.context.get(sid, "").lower().split())
        if key in by_text:
            rename[sid] = by_text[key]
        else:
            rename[sid] = f"gold:{sid}"
            tree.context[f"gold:{sid}"] = ref.context.get(sid, "")
    tree.steps = [ProofStep(tuple(rename.get(p, p) for p in s.premises), s.conclusion, s.text) for s in ref.steps]
    tree.intermediates = dict(ref.intermediates)
    tree.depth = ref.depth
    return tree


def load_angles(path: str | Path) -> list[EntailmentTree]:
    """Load an "angles" file (``{input, output, angle, id}``; question/answer/hypothesis/context in,
    proof out). Only the published angle (context -> proof) is supported."""
    path = Path(path)
    task = path.parent.name
    out: list[EntailmentTree] = []
    for lineno, obj in iter_jsonl(path):
        where = f"{path}:{lineno}"
        slots: dict[str, str] = {}
        for text in (str(_field(obj, "input", where)), str(_field(obj, "output", where))):
            parts = _ANGLE_SLOT.split(text)
            for i in range(1, len(parts) - 1, 2):
                value = parts[i + 1].strip()
                if parts[i] != "proof":  # slots are separated by " ; "; a proof ends in its own ';'
                    value = value.removesuffix(";").strip()
                slots[parts[i]] = value
        for key in ("question", "hypothesis", "context"):
            if key not in slots:
                raise InputError(f"{where}: no ${key}$ slot in the input")
        out.append(
            EntailmentTree(
                id=str(obj.get("id", lineno)),
                question=slots["question"],
                answer=slots.get("answer", ""),
                hypothesis=slots["hypothesis"],
                context=parse_context(slots["context"]),
                steps=parse_proof(slots.get("proof", ""), where),
                task=task,
            )
        )
    for tree in out:
        tree.depth = tree.graph().depth() - 1 if tree.steps else 0
    return out


def load_worldtree(path: str | Path) -> list[Passage]:
    """The WorldTree corpus (``{uuid: sentence}``) as passages; the ``DUMMY`` filler is skipped."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object uuid -> sentence")
    return [Passage(str(k), str(v)) for k, v in data.items() if isinstance(v, str) and v.strip() and v != "DUMMY"]


def tree_record(tree: EntailmentTree, split: str = "dev") -> dict[str, Any]:
    """The tree in the builder's JSONL record format (pool = the context sentences)."""
    graph = tree.graph()
    used = set(tree.leaves())
    distractors = set(tree.distractors)
    evidence = [
        {
            "id": sid,
            "text": text,
            "facts": [],
            "gold": sid in used,
            "distractor_kind": None if sid in used else ("distractor" if sid in distractors else "context"),
        }
        for sid, text in tree.context.items()
        if not sid.startswith("gold:")  # task-3 leaves the retrieved context missed are not in the pool
    ]
    return {
        "id": f"entailmentbank/{tree.task}/{tree.id}",
        "source": f"entailmentbank/{tree.task}/{split}",
        "split": split,
        "question": tree.question,
        "answers": [tree.answer] if tree.answer else [],
        "qtype": tree.task,
        "hops": tree.depth,
        "graph_type": graph.graph_type(),
        "topic_entities": [],
        "evidence": evidence,
        "graph": graph.to_json(),
    }


def iter_entailmentbank_records(data_root: str | Path, tasks: tuple[int, ...] = (1, 2, 3),
                                train: bool = True, splits: Sequence[str] | None = None, limit: int | None = None,
                                seed: int | None = None, ratios: Sequence[int] = (8, 1, 1)) -> Iterator[dict[str, Any]]:
    """Builder-format records from the source ``splits`` (``dev``: the v2 dev trees of ``tasks``, task
    3 with trees from task 1; ``train``: the angles train trees of tasks 1-2, whose task-3 angles carry
    no proofs); default ``dev`` plus ``train`` when ``train`` is set. ``limit`` keeps the first N trees
    of each source file. With a ``seed`` the records are re-split ``ratios`` (8:1:1), the same
    question (in any task) always in one split; without one each keeps its source split."""
    eb = Path(data_root) / "entailmentbank"
    splits = list(splits) if splits is not None else (["dev", "train"] if train else ["dev"])
    unknown = [s for s in splits if s not in ("train", "dev")]
    if unknown:
        raise InputError(f"entailmentbank: unknown source split {unknown[0]!r}; choose train and/or dev")
    records = []
    for split in ("dev", "train"):
        if split not in splits:
            continue
        for k in (tasks if split == "dev" else [t for t in tasks if t != 3]):
            if split == "dev":
                trees = load_entailmentbank(eb / f"task_{k}" / "dev.jsonl", trees_from=eb / "task_1" / "dev.jsonl" if k == 3 else None)
            else:
                trees = load_angles(eb / "angles" / f"task_{k}" / "train.jsonl")
            records += [tree_record(tree, split) for tree in (trees[:limit] if limit else trees)]
    if seed is not None:
        from graphhop.datasets.splits import grouped_splits

        chosen = grouped_splits([(i, r["question"], []) for i, r in enumerate(records)], seed, ratios)
        for i, rec in enumerate(records):
            rec["split"] = chosen[i]
    yield from records
