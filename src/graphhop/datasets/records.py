"""Builder records on disk: reading them, writing a dataset folder (``train/dev/test.jsonl`` +
``stats.json`` / ``stats.md``), and the Table-2-style statistics (:class:`DatasetStats`)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from graphhop.core import InputError
from graphhop.graph import GRAPH_TYPES, EvidenceGraph, StructureCounter
from graphhop.kb.loaders import iter_jsonl

__all__ = ["SPLITS", "Dropped", "read_records", "DatasetStats", "stats_table", "write_dataset", "rewrite_stats",
           "record_schema", "stats_of_files"]

SPLITS = ("train", "dev", "test")


@dataclass
class Dropped:
    """A question the builder could not turn into a valid example, and why."""

    id: str
    reason: str


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream builder records from a JSONL file (errors name the file and line)."""
    path = Path(path)
    for lineno, rec in iter_jsonl(path):
        for key in ("id", "question", "evidence", "graph"):
            if key not in rec:
                raise InputError(f"{path}:{lineno}: missing field {key!r}")
        yield rec


#: The per-record sizes a :class:`DatasetStats` sums and reports as means over the questions.
MEAN_SIZES = ("nodes", "edges", "depth", "pool", "gold_evidence")
_ROW_KEYS = ("name", "questions", "nodes", "edges", "depth", "max_depth", "pool", "gold_evidence", "structures", "qtypes",
             "dropped")


def record_sizes(rec: dict[str, Any], graph: EvidenceGraph) -> dict[str, int]:
    """The :data:`MEAN_SIZES` of one record: its graph's nodes, edges and depth, its pool and gold evidence."""
    return {"nodes": len(graph), "edges": graph.g.number_of_edges(), "depth": graph.depth(),
            "pool": len(rec["evidence"]), "gold_evidence": sum(1 for e in rec["evidence"] if e.get("gold"))}


@dataclass
class DatasetStats:
    """Table-2-style statistics, accumulated one record at a time."""

    name: str = ""
    n: int = 0
    max_depth: int = 0
    sums: Counter = field(default_factory=Counter)  # the MEAN_SIZES, summed over the records
    types: Counter = field(default_factory=Counter)
    qtypes: Counter = field(default_factory=Counter)
    distractor_kinds: Counter = field(default_factory=Counter)
    structures: StructureCounter = field(default_factory=StructureCounter)
    dropped: Counter = field(default_factory=Counter)

    def add(self, rec: dict[str, Any], where: str = "record") -> None:
        """Count one record."""
        graph = EvidenceGraph.from_json(rec["graph"], where)
        sizes = record_sizes(rec, graph)
        self.n += 1
        self.sums.update(sizes)
        self.max_depth = max(self.max_depth, sizes["depth"])
        self.types[rec.get("graph_type") or graph.graph_type()] += 1
        self.qtypes[rec.get("qtype", "")] += 1
        self.distractor_kinds.update(e.get("distractor_kind") for e in rec["evidence"] if not e.get("gold"))
        self.structures.add(graph)

    def drop(self, reason: str) -> None:
        """Count one dropped question (reasons are shortened to their first clause)."""
        self.dropped[re.sub(r"\(.*", "", reason.split(":")[0]).strip()] += 1

    def row(self) -> dict[str, Any]:
        """The statistics as a flat dict (means over questions; shares in percent)."""
        n = max(self.n, 1)
        values = {size: round(self.sums[size] / n, 2) for size in MEAN_SIZES}
        values.update(name=self.name, questions=self.n, max_depth=self.max_depth, structures=len(self.structures),
                      qtypes=len(self.qtypes), dropped=sum(self.dropped.values()))
        row: dict[str, Any] = {key: values[key] for key in _ROW_KEYS}
        for t in GRAPH_TYPES:
            row[t] = round(100 * self.types[t] / n, 1)
        return row


_COLUMNS = [
    ("name", "dataset"), ("questions", "questions"), ("nodes", "nodes"), ("edges", "edges"),
    ("depth", "depth"), ("max_depth", "max depth"), ("pool", "pool"), ("gold_evidence", "gold ev."),
    ("single-chain single-hop", "SC-SH %"), ("single-chain multi-hop", "SC-MH %"),
    ("multi-chain single-hop", "MC-SH %"), ("multi-chain multi-hop", "MC-MH %"),
    ("structures", "structures"), ("qtypes", "q. types"), ("dropped", "dropped"),
]


def stats_table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table of :meth:`DatasetStats.row` dicts."""
    head = "| " + " | ".join(title for _, title in _COLUMNS) + " |"
    sep = "|" + "|".join("---" if k == "name" else "---:" for k, _ in _COLUMNS) + "|"
    lines = [head, sep]
    for row in rows:
        lines.append("| " + " | ".join(str(row.get(k, "")) for k, _ in _COLUMNS) + " |")
    return "\n".join(lines)


def write_dataset(
    records: Iterable[dict[str, Any] | Dropped],
    out_dir: str | Path,
    name: str = "",
    total: int | None = None,
    progress: bool = False,
) -> dict[str, DatasetStats]:
    """Stream records into ``out_dir/{train,dev,test}.jsonl``; write ``stats.json`` and ``stats.md``.

    Returns the statistics per split plus ``all`` (which also counts dropped questions). The folder
    is written atomically and replaces only an earlier dataset folder (one with ``stats.json``).
    """
    from graphhop.io import atomic_dir

    stats = {s: DatasetStats(f"{name} {s}".strip()) for s in SPLITS}
    stats["all"] = DatasetStats(f"{name} all".strip())
    with atomic_dir(out_dir, overwrite=True, replace_if=("stats.json",)) as tmp:
        _write_records(records, tmp, stats, name, total, progress)
        rewrite_stats(tmp, stats)
    return stats


def _write_records(records: Iterable[dict[str, Any] | Dropped], out: Path, stats: dict[str, DatasetStats],
                   name: str, total: int | None, progress: bool) -> None:
    handles = {s: (out / f"{s}.jsonl").open("w", encoding="utf-8") for s in SPLITS}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc=f"build {name}".strip(), unit="q", mininterval=1.0)
    try:
        for rec in records:
            if bar is not None:
                bar.update(1)
            if isinstance(rec, Dropped):
                stats["all"].drop(rec.reason)
                continue
            handles[rec["split"]].write(json.dumps(rec, ensure_ascii=False) + "\n")
            stats[rec["split"]].add(rec)
            stats["all"].add(rec)
    finally:
        for fh in handles.values():
            fh.close()
        if bar is not None:
            bar.close()


def record_schema() -> dict[str, str]:
    """The fields of one builder record and what they hold (printed by ``graphhop dataset-stats --schema``)."""
    return {
        "id": "unique id: <source>/<dataset example id>",
        "source": "dataset name and source split it came from, e.g. pq-2h/train",
        "split": "train | dev | test (seeded 8:1:1 by the smallest gold path)",
        "question": "question text as published",
        "answers": "gold answers (raw KB strings)",
        "qtype": "question type (MetaQA type, KQA Pro template, or the dataset name)",
        "hops": "length of the longest gold path",
        "graph_type": "one of " + ", ".join(GRAPH_TYPES),
        "topic_entities": "topic entities (raw KB strings)",
        "evidence": "pool: [{id, text, facts: [[h, r, t], ...], gold: bool, distractor_kind: null|dense|same-head|random}]",
        "graph": "gold reasoning graph, EvidenceGraph.to_json(): {root, question, text_evidence, nodes, edges}",
    }


def rewrite_stats(out_dir: str | Path, stats: dict[str, DatasetStats]) -> None:
    """(Re)write ``stats.json`` and ``stats.md`` of a dataset folder from ``stats``."""
    out = Path(out_dir)
    summary = {k: {**v.row(), "dropped_reasons": dict(v.dropped), "distractor_kinds": dict(v.distractor_kinds)}
               for k, v in stats.items()}
    from graphhop.io import atomic_write_text

    atomic_write_text(out / "stats.json", json.dumps(summary, indent=2) + "\n")
    atomic_write_text(out / "stats.md", stats_table([stats[k].row() for k in ("all", *SPLITS)]) + "\n")


def stats_of_files(paths: Iterable[str | Path], name: str = "") -> DatasetStats:
    """Statistics of builder (or EntailmentBank) JSONL files."""
    stats = DatasetStats(name)
    for path in paths:
        for i, rec in enumerate(read_records(path), start=1):
            stats.add(rec, where=f"{path}:{i}")
    return stats
