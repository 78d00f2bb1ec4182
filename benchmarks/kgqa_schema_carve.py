"""The selection carve of the scorer's hand-written schemas as ``eval-qa`` folders (never trained on).

Each schema of :mod:`graphhop.kgqa.schemas` is written as ``OUT/schema_NAME/kb.tsv`` (its training KB,
seed 0) with ``questions.jsonl``: questions generated as in training whose masked text falls in the
*selection* split (:func:`graphhop.kgqa.train.is_selection`: the scorer never trains on them), the topic's
name put back for ``X``, the gold chain's facts and end entities as answers. What these folders choose
(e.g. the abstention threshold: ``graphhop eval-qa OUT/schema_kitchens --hops 4 -o threshold=T``) is chosen
on the training carve, never on the selection KBs or dev.

    python benchmarks/kgqa_schema_carve.py --out /tmp/schema-carve --n 40 --weights DIR [--weights DIR2]
    python benchmarks/kgqa_schema_carve.py --out /tmp/schema-carve --n 80 --epoch-dir EPOCHS --choose --write OUT

With ``--weights`` each head answers every carve question through the ``kgqa`` pipeline at ``--hops 4``
with no threshold; printed: questions right, right / answered wrong at the head's own threshold, and the
threshold the training rule (:func:`graphhop.kgqa.train.choose_threshold`: most right minus wrong) picks
on these end-to-end confidences. With ``--epoch-dir`` (``train kgqa --epoch-dir``) every epoch's head is
scored too, and ``--choose`` picks the epoch and the threshold(s) on the carve
(:func:`graphhop.kgqa.epoch_heads.choose_head`), ``--write`` writes that head with them.

With ``--kbs FOLDER ...`` the heads are scored and chosen on those hand-written KB folders instead of the
carve (no carve is written): *right for the right reason* as ``eval-qa`` scores it, every question type
(:func:`graphhop.kgqa.epoch_heads.kb_confidences`). Session 8 chooses on the blind selection KBs:

    python benchmarks/kgqa_schema_carve.py --kbs tests/kgqa/data/kg_wine tests/kgqa/data/kg_airlines ... \
        --weights DIR --epoch-dir EPOCHS --choose --write OUT --save KEPT
"""

from __future__ import annotations

import argparse
import json
import hashlib
import random
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kgqa.schemas import SCHEMAS, sample_questions, schema_store
from graphhop.kgqa.train import choose_threshold, is_selection


def gold_facts(store: KGStore, topic: int, steps: Sequence[tuple[int, bool]]) -> tuple[list[list[str]], list[str]]:
    """Facts of the chain ``steps`` from ``topic`` that lead to its end entities, and those ends."""
    layers, edges = [np.asarray([topic])], []
    for rel, fwd in steps:
        e, reached = store.step(layers[-1], rel, fwd)
        edges.append((e, fwd))
        layers.append(np.unique(reached))
    keep, facts = set(layers[-1].tolist()), []
    for e, fwd in reversed(edges):
        far, near = (store.tails[e], store.heads[e]) if fwd else (store.heads[e], store.tails[e])
        on = [i for i in range(len(e)) if int(far[i]) in keep]
        facts += [[store.entities[store.heads[e[i]]], store.relations[store.rels[e[i]]], store.entities[store.tails[e[i]]]]
                  for i in on]
        keep = {int(near[i]) for i in on}
    return facts[::-1], [store.entities[i] for i in layers[-1]]


def carve_row(store: KGStore, topic: int, steps: Sequence[tuple[int, bool]], text: str) -> dict[str, Any] | None:
    """A carve question (``id`` left to the caller) for a generated question in the selection split whose
    chain ends at 1-3 entities; None otherwise."""
    if not is_selection(text):
        return None
    chain, ends = gold_facts(store, topic, steps)
    if not ends or len(ends) > 3:
        return None
    question = re.sub(r"\bX\b", store.entities[topic], text)
    return {"id": "", "question": question[:1].upper() + question[1:] + "?", "answers": ends, "type": "plain",
            "hops": len(steps), "gold_facts": chain}


HOPS = 4  # the hop bound every head is read with (``kgqa --hops 4``)


def rules_digest() -> str:
    """The digest of the ``kgqa`` pipeline's rules (``src/graphhop/kgqa/*.py``): a changed rule moves the answers."""
    import graphhop.kgqa

    files = sorted(Path(graphhop.kgqa.__file__).parent.glob("*.py"))
    return hashlib.sha1(b"".join(f.name.encode() + f.read_bytes() for f in files)).hexdigest()


def saved_key(weights: str | Path, n: int, seed: int, kbs: Sequence[Path] = ()) -> str:
    """What a head's kept carve arrays are valid for: the head's resolved folder, the digest of its
    ``head.npz`` (a retrained ``epoch_1`` is another head), the hop bound, the digest of the pipeline's rules
    (:func:`rules_digest`) and the carve's ``--n`` and ``--seed`` (with ``--kbs``: the KB folders and the
    digest of their files instead)."""
    folder = Path(weights).resolve()
    digest = hashlib.sha1((folder / "head.npz").read_bytes()).hexdigest()
    common = {"weights": str(folder), "head_sha1": digest, "hops": HOPS, "rules_sha1": rules_digest()}
    if kbs:
        files = hashlib.sha1(b"".join((Path(k) / f).read_bytes() for k in kbs for f in ("kb.tsv", "questions.jsonl")))
        return json.dumps({**common, "kbs": [str(Path(k).resolve()) for k in kbs], "kbs_sha1": files.hexdigest()},
                          sort_keys=True)
    return json.dumps({**common, "n": n, "seed": seed}, sort_keys=True)


def read_kept(kept: Path, key: str) -> dict[str, np.ndarray] | None:
    """The arrays kept in ``kept`` if they were written for ``key`` (:func:`saved_key`), else None."""
    if not kept.is_file():
        return None
    with np.load(kept) as arrays:
        if "key" not in arrays.files or str(arrays["key"]) != key:
            return None
        return {k: arrays[k] for k in arrays.files if k != "key"}


def keep(kept: Path, key: str, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` with their ``key`` to ``kept`` atomically (a temp file beside it, then renamed)."""
    from graphhop.io import atomic_file

    with atomic_file(kept, "wb") as fh:
        np.savez(fh, key=np.asarray(key), **arrays)


def score_heads(folders: list[Path], heads: list[str], save: Path | None = None, n: int = 0,
                seed: int = 0, kbs: bool = False) -> dict[str, dict[str, np.ndarray]]:
    """Each head's end-to-end confidences and hits on the carve folders, and the threshold they choose
    (printed one JSON line a head). With ``save`` the per-question arrays are kept there (one ``.npz`` per
    head, named by its folder and keyed by :func:`saved_key`), and arrays kept for the same key are read
    back, not rerun. ``kbs``: ``folders`` are hand-written KBs, scored by right reason
    (:func:`graphhop.kgqa.epoch_heads.kb_confidences`)."""
    from graphhop.cli.kgqa import support_triples
    from graphhop.kgqa.epoch_heads import carve_confidences, kb_confidences
    from graphhop.kgqa.scorer import PathScorer
    from graphhop.models.encoder import set_threads

    set_threads(1)
    scores = {}
    for weights in heads:
        key = saved_key(weights, n, seed, folders if kbs else ())
        name = f"{Path(weights).name}-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
        kept = None if save is None else save / name
        s = None if kept is None else read_kept(kept, key)
        if s is None:
            s = (kb_confidences(folders, weights, support_triples, hops=HOPS) if kbs
                 else carve_confidences(folders, weights, hops=HOPS))
            if kept is not None:
                keep(kept, key, s)
        scores[weights] = s
        p, h = s["probs"], s["hits"]
        own = float(PathScorer.load(weights).config.get("threshold", 0.0))
        tau = choose_threshold(p, h)
        kept_mask = p >= own
        print(json.dumps({"weights": weights, "n": len(h), "right_no_threshold": int(h.sum()), "own_threshold": round(own, 4),
                          "right_at_own": int((h & kept_mask).sum()), "wrong_at_own": int((~h & kept_mask).sum()),
                          "chosen_threshold": round(tau, 4), "right_minus_wrong_at_chosen": int((h & (p >= tau)).sum() - (~h & (p >= tau)).sum())}),
              flush=True)
    return scores


def heads_of(weights: list[str], epoch_dir: Path | None) -> list[str]:
    """The ``--weights`` heads, then ``--epoch-dir``'s ``epoch_N`` heads in epoch order
    (:func:`graphhop.kgqa.epoch_heads.epoch_heads`: other folders there, e.g. ``epoch_final``, are skipped)."""
    from graphhop.kgqa.epoch_heads import epoch_heads

    if epoch_dir is None:
        return list(weights)
    if not epoch_dir.is_dir():
        raise SystemExit(f"kgqa_schema_carve: --epoch-dir {epoch_dir}: not a folder")
    epochs = epoch_heads(epoch_dir)
    if not epochs:
        raise SystemExit(f"kgqa_schema_carve: {epoch_dir}: no epoch_N heads (train kgqa --epoch-dir writes them)")
    return list(weights) + [str(p) for p in epochs]


def choose(scores: dict[str, dict[str, np.ndarray]], out: Path | None, carve: str) -> None:
    """Print the head and threshold(s) the carve chooses (:func:`graphhop.kgqa.epoch_heads.choose_head`);
    with ``out`` write that head there with them."""
    from graphhop.kgqa.epoch_heads import choose_head, write_chosen

    best, rows = choose_head(scores)
    for row in rows:
        print(json.dumps({**row, "chosen": row["head"] == best}))
    if out is not None:
        write_chosen(best, out, next(r for r in rows if r["head"] == best), carve)
        print(f"wrote {out} (from {best})")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, checked before anything is written or scored (usage errors: one line, exit 2)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="where the carve is written (required unless --kbs)")
    ap.add_argument("--kbs", type=Path, nargs="+", help="score and choose on these hand-written KB folders instead of the carve")
    ap.add_argument("--n", type=int, help="selection questions per schema (default 40; not with --kbs)")
    ap.add_argument("--seed", type=int, help="the carve's seed (default 99; not with --kbs)")
    ap.add_argument("--weights", action="append", default=[], help="a KGQA scorer directory to score on the carve (repeatable)")
    ap.add_argument("--epoch-dir", type=Path, help="also score every DIR/epoch_N head (train kgqa --epoch-dir)")
    ap.add_argument("--choose", action="store_true", help="choose the head (epoch) and its threshold(s) on the carve")
    ap.add_argument("--write", type=Path, help="with --choose: write the chosen head there (a new folder), its carve threshold(s) in its config")
    ap.add_argument("--save", type=Path, help="keep each head's per-question confidences in this folder (.npz)")
    args = ap.parse_args(argv)
    if args.out is None and not args.kbs:
        ap.error("give --out (where the carve is written) or --kbs FOLDER ...")
    if args.kbs and (args.out is not None or args.n is not None or args.seed is not None):
        ap.error("--out, --n and --seed describe the carve: not with --kbs (the KB folders are scored as they are)")
    args.n, args.seed = 40 if args.n is None else args.n, 99 if args.seed is None else args.seed
    for kb in args.kbs or ():
        if not ((kb / "kb.tsv").is_file() and (kb / "questions.jsonl").is_file()):
            ap.error(f"--kbs {kb}: no kb.tsv and questions.jsonl there")
    if args.n < 1:
        ap.error(f"--n must be at least 1 (got {args.n})")
    if not args.weights and args.epoch_dir is None and (args.choose or args.save is not None):
        ap.error("--choose and --save need heads: give --weights DIR or --epoch-dir DIR")
    if args.write is not None and not args.choose:
        ap.error("--write needs --choose (it writes the head the carve chooses)")
    if args.write is not None and (args.write.exists() or args.write.is_symlink()):
        ap.error(f"--write {args.write}: already exists (give a new folder)")
    if args.write is not None and not args.write.parent.is_dir():
        ap.error(f"--write {args.write}: its parent folder does not exist")
    if args.save is not None and args.save.exists() and not args.save.is_dir():
        ap.error(f"--save {args.save}: is a file, not a folder")
    try:
        args.heads = heads_of(args.weights, args.epoch_dir)
    except SystemExit as exc:
        ap.error(str(exc).removeprefix("kgqa_schema_carve: "))
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    if args.kbs:
        scores = score_heads(list(args.kbs), args.heads, args.save, kbs=True)
        if args.choose:
            choose(scores, args.write, "benchmarks/kgqa_schema_carve.py --kbs " + " ".join(k.name for k in args.kbs) + " (kgqa --hops 4, right reason)")
        return
    folders = []
    rng = random.Random(args.seed)
    for schema in SCHEMAS:
        store = schema_store(schema, 0)
        folder = args.out / f"schema_{schema.name}"
        folder.mkdir(parents=True, exist_ok=True)
        folders.append(folder)
        facts = zip(store.heads.tolist(), store.rels.tolist(), store.tails.tolist())
        (folder / "kb.tsv").write_text("".join(f"{store.entities[h]}\t{store.relations[r]}\t{store.entities[t]}\n"
                                               for h, r, t in facts), encoding="utf-8")
        rows = sample_questions(schema, store, rng, args.n, 200 * args.n, lambda *made: carve_row(store, *made))
        for i, row in enumerate(rows):
            row["id"] = f"{schema.name[:3]}{i:02d}"
        (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{folder}: {len(rows)} questions, {len(store.heads)} facts")
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    if args.heads:
        scores = score_heads(folders, args.heads, args.save, args.n, args.seed)
        if args.choose:
            choose(scores, args.write, f"benchmarks/kgqa_schema_carve.py --n {args.n} --seed {args.seed} (kgqa --hops 4)")


if __name__ == "__main__":
    main()
