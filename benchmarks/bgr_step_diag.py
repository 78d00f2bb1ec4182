"""Where BGR's forward matcher fails: teacher-forced step accuracy on train vs dev questions.

For every forward teacher-forcing prefix of the gold graphs (the question, then each root path prefix)
with at least one child, is the matcher's best candidate (nodes on the prefix excluded) a gold child,
and does a gold child pass the dev-chosen threshold? For comparison, the same for two of the
matcher's own pair features used alone as rankers: the cosine to the path's last node and (models
with the path-text feature) the cosine to the re-encoded ``question [SEP] path`` (the MDR query).
Step 1 = the empty prefix, step 2 = after one node, ...

    python benchmarks/bgr_step_diag.py runs/bgr/pq-2h --data-dir runs/bgr-data/pq-2h --limit 200
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from graphhop.datasets.builder import read_records  # noqa: E402
from graphhop.retrieve.graphhop import BGRConfig, N_PAIR, load_model, pair_features, path_text, token_set  # noqa: E402
from graphhop.train.bgr import forward_targets  # noqa: E402
from graphhop.train.bgr_data import EmbeddingCache, load_examples  # noqa: E402


def step_accuracy(run: Path, records: list[dict], cache_dir: Path) -> dict[int, dict[str, float]]:
    """``{step: {"n", "matcher@1", "above threshold", "last-node cos@1", "path cos@1"}}`` (shares)."""
    model, card = load_model(run / "model")
    enc = model.cfg.encoder
    cache = EmbeddingCache(run / "emb-cache", model=enc) if enc != BGRConfig().encoder else EmbeddingCache(cache_dir)
    dm = model.direction("forward").eval()
    thr = card.get("selection", {}).get("threshold_forward", 0.5)
    use_pt = dm.matcher.n_pair > N_PAIR
    acc: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for ex in load_examples(records, cache):
        toks = ex.pool.tokens
        q_tokens = token_set(ex.query)
        with torch.no_grad():
            q = dm.proj(torch.as_tensor(ex.question_vec).view(1, -1))
            cands = dm.proj(torch.as_tensor(ex.pool.vectors)).unsqueeze(0)
        pos = {eid: i for i, eid in enumerate(ex.pool.ids)}
        for prefix, targets in forward_targets(ex.gold):
            gold = {pos[t] for t in targets if t in pos}
            if not gold or any(p not in pos for p in prefix):
                continue
            path = [pos[p] for p in prefix]
            last = path[-1] if path else None
            pv = None
            if use_pt:
                pv = cache.encode([path_text(ex.query, [ex.pool.texts[i] for i in path])])[0] if path else ex.question_vec
            feats = pair_features(ex.question_vec, q_tokens, ex.pool.vectors, toks,
                                  ex.pool.vectors[last] if last is not None else None,
                                  toks[last] if last is not None else frozenset(),
                                  frozenset().union(*(toks[i] for i in path)) if path else frozenset(), pv)
            with torch.no_grad():
                code = q
                for i in path:
                    code = dm.update(code, cands[:, i])
                scalar = [torch.tensor([bool(path)])] if getattr(dm, "scalar_after_first", False) else []
                probs = torch.sigmoid(dm.logits(code, q, cands, False, torch.from_numpy(feats).unsqueeze(0)
                                                if dm.matcher.n_pair else None, *scalar)[0]).numpy()
            a = acc[len(path) + 1]
            a["n"] += 1
            for name, scores in (("matcher@1", probs), ("last-node cos@1", feats[:, 1]),
                                 ("path cos@1", feats[:, N_PAIR] if use_pt else None)):
                if scores is None or (name == "last-node cos@1" and not path):
                    continue
                s = np.array(scores, dtype=float)
                s[path] = -np.inf
                a[name] += int(np.argmax(s)) in gold
            a["above threshold"] += any(probs[i] >= thr for i in gold)
    return {step: {k: (v if k == "n" else v / a["n"]) for k, v in a.items()} for step, a in sorted(acc.items())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a dataset folder of bgr_eval.py's output (holds model/)")
    ap.add_argument("--data-dir", type=Path, required=True, help="the builder dataset (train/dev.jsonl)")
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"), help="frozen-encoder vector cache")
    ap.add_argument("--limit", type=int, default=200, help="N questions per split, spread evenly (stride)")
    ap.add_argument("--splits", default="train,dev", help="splits compared (test: a test.jsonl beside dev)")
    args = ap.parse_args()
    from graphhop.eval.experiment import stride_sample

    torch.set_num_threads(1)
    cols = ["n", "matcher@1", "above threshold", "last-node cos@1", "path cos@1"]
    print("| split | step | " + " | ".join(cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    for split in args.splits.split(","):
        recs = stride_sample([r for r in read_records(args.data_dir / f"{split}.jsonl") if r.get("evidence")], args.limit)
        for step, a in step_accuracy(args.run, recs, args.cache).items():
            cells = [f"{int(a['n'])}"] + [f"{a[c]:.3f}" if c in a else "–" for c in cols[1:]]
            print(f"| {split} | {step} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
