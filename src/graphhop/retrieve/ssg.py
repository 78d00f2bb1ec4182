"""SSG, the support-set generator of NeuralDB (Thorne et al. 2021, "Database reasoning over text").

SSG builds *support sets*: each set holds the facts that together produce one answer. It grows sets
one action at a time. The state is the query followed by the facts already in the set
(``query [SEP] fact_1 [SEP] ...``); an action is a pool sentence (add it) or ``<eos>`` (close the set).
A bi-encoder scores state against action; every action above a threshold is taken (breadth-first),
so one state can open several sets, and a set closes on ``<eos>``, when no action passes the
threshold, or after ``max_steps`` facts. The release fine-tunes a sentence encoder with a contrastive
loss on (state, action, label) pairs and thresholds the cosine.

CPU recipe here (the graph-hop paper's baseline, trained in minutes on 2 cores): the encoder is the
frozen bundled MiniLM (vectors cached); a residual linear adapter on each side
(``x + W x``, ``W`` zero-initialised, so the untrained model is plain MiniLM cosine), a learned
``<eos>`` vector, and a logistic score ``tau * cos(state, action) + beta`` trained with binary
cross-entropy on the same pairs (the threshold is then on a probability). As in BGR, the best
candidate is taken at the first step when none passes the threshold, so a graph is never empty.

Graph: each support set is a chain ``question -> fact_1 -> ... -> fact_n`` in the order SSG added its
facts; sets that share a prefix share nodes (an edge that would close a cycle is skipped). Sets with
the same facts in another order are one set.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import networkx as nx
import numpy as np
import torch
from torch import nn

from graphhop.core import InputError
from graphhop.graph import ROOT, EvidenceGraph
from graphhop.models.head_config import EncoderHeadConfig
from graphhop.retrieve.bgr_model import path_text

__all__ = ["SSGConfig", "SSGModel", "SSGRetriever", "state_text", "support_sets", "sets_to_graph",
           "save_ssg", "load_ssg", "EOS"]

EOS = "<eos>"
MODEL_FILE = "ssg.pt"
CARD_FILE = "model_card.json"


@dataclass
class SSGConfig(EncoderHeadConfig):
    """Model and inference settings (stored in the model card) after the encoder's."""

    threshold: float = 0.5
    max_branch: int = 3
    max_steps: int = 3
    max_states: int = 16
    sep: str = " [SEP] "

    def check(self) -> None:
        """Raise :class:`InputError` on impossible values."""
        if not 0.0 <= self.threshold <= 1.0:
            raise InputError(f"SSG threshold must be in [0, 1], got {self.threshold}")
        if min(self.max_branch, self.max_steps, self.max_states) < 1:
            raise InputError("SSG max_branch, max_steps and max_states must be >= 1")


#: The SSG state: the query followed by the texts of the facts in the set (the text of a BGR path).
state_text = path_text


class SSGModel(nn.Module):
    """Scores (state, action) pairs: ``sigmoid(tau * cos(A_s s, A_a a) + beta)`` with residual adapters."""

    def __init__(self, cfg: SSGConfig | None = None) -> None:
        super().__init__()
        self.cfg = cfg or SSGConfig()
        d = self.cfg.input_dim
        self.state = nn.Linear(d, d, bias=False)
        self.action = nn.Linear(d, d, bias=False)
        nn.init.zeros_(self.state.weight)
        nn.init.zeros_(self.action.weight)
        self.eos = nn.Parameter(torch.randn(d, generator=torch.Generator().manual_seed(13)) / d ** 0.5)
        self.tau = nn.Parameter(torch.tensor(10.0))
        self.beta = nn.Parameter(torch.tensor(-5.0))

    def logits(self, states: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """``states [N, d]``, ``actions [N, P, d]`` (pool) -> logits ``[N, P + 1]``, ``<eos>`` last."""
        s = nn.functional.normalize(states + self.state(states), dim=-1)
        eos = self.eos.view(1, 1, -1).expand(actions.shape[0], 1, -1)
        a = torch.cat([actions, eos], dim=1)
        a = nn.functional.normalize(a + self.action(a), dim=-1)
        return self.tau * torch.einsum("nd,npd->np", s, a) + self.beta


@dataclass
class _State:
    chain: tuple[int, ...]
    score: float


def support_sets(model: SSGModel, query: str, texts: Sequence[str], vectors: np.ndarray,
                 encode: Callable[[list[str]], np.ndarray], cfg: SSGConfig | None = None) -> list[tuple[tuple[int, ...], float]]:
    """Breadth-first support-set generation over one pool: ``[(pool indices in order added, score)]``;
    ``score`` is the product of the action probabilities (``<eos>`` included when it closed the set)."""
    cfg = cfg or model.cfg
    n = len(texts)
    if n == 0:
        return []
    acts = torch.as_tensor(np.asarray(vectors, dtype=np.float32)).unsqueeze(0)
    open_states, final = [_State((), 1.0)], []
    model.eval()
    for step in range(cfg.max_steps):
        if not open_states:
            break
        svec = torch.as_tensor(np.asarray(encode([state_text(query, [texts[i] for i in st.chain], cfg.sep)
                                                  for st in open_states]), dtype=np.float32))
        with torch.no_grad():
            probs = torch.sigmoid(model.logits(svec, acts.expand(len(open_states), -1, -1))).numpy()
        nxt: list[_State] = []
        for st, p in zip(open_states, probs):
            cand = p[:n].copy()
            cand[list(st.chain)] = -1.0
            order = np.argsort(-cand, kind="stable")
            take = [int(i) for i in order[: cfg.max_branch] if cand[i] >= cfg.threshold]
            if step == 0 and not take:
                take = [int(order[0])]
            if st.chain and (p[n] >= cfg.threshold or not take):
                final.append((st.chain, st.score * float(max(p[n], 1e-6))))
            nxt.extend(_State(st.chain + (i,), st.score * float(cand[i])) for i in take)
        nxt.sort(key=lambda s: -s.score)
        open_states = nxt[: cfg.max_states]
    final.extend((st.chain, st.score) for st in open_states)
    seen: set[frozenset[int]] = set()
    out = []
    for chain, score in sorted(final, key=lambda x: -x[1]):
        key = frozenset(chain)
        if key not in seen:
            seen.add(key)
            out.append((chain, score))
    return out


def sets_to_graph(question: str, sets: Sequence[Sequence[int]], ids: Sequence[str], texts: Sequence[str],
                  facts: Sequence[Any] | None = None) -> EvidenceGraph:
    """Support sets (pool indices in the order added) as an evidence graph of chains from the question."""
    g = nx.DiGraph()
    g.add_node(ROOT)
    for chain in sets:
        prev = ROOT
        for i in chain:
            v = ids[i]
            if not (v in g and nx.has_path(g, v, prev)):
                g.add_edge(prev, v)
            prev = v
    out = EvidenceGraph(question)
    pos = {d: i for i, d in enumerate(ids)}
    for node in nx.topological_sort(g):
        if node != ROOT:
            out.add_evidence(node, texts[pos[node]], (facts[pos[node]] if facts else []) or [])
    for u, v in g.edges:
        out.add_edge(u, v)
    return out


class SSGRetriever:
    """SSG over a candidate pool (over an index: :class:`graphhop.pipeline.ssg.SSGGraphs`)."""

    def __init__(self, model: SSGModel, encode: Callable[[list[str]], np.ndarray]) -> None:
        self.model = model
        self.cfg = model.cfg
        self.encode = encode
        model.eval()

    def retrieve_pool(self, question: str, pool: Any, query: str | None = None) -> EvidenceGraph:
        """The evidence graph of ``question`` over ``pool`` (a :class:`~graphhop.retrieve.graphhop.CandidatePool`);
        ``query`` is the text SSG encodes (default: the normalized question)."""
        from graphhop.kb.verbalize import normalize_question

        q = query if query is not None else normalize_question(question)
        sets = support_sets(self.model, q, pool.texts, pool.vectors, self.encode, self.cfg)
        return sets_to_graph(question, [c for c, _ in sets], pool.ids, pool.texts, pool.facts)


def save_ssg(model: SSGModel, out_dir: str | Path, card: dict[str, Any] | None = None) -> Path:
    """Write ``ssg.pt`` and ``model_card.json`` into ``out_dir`` atomically (replacing it)."""
    from graphhop.io import atomic_dir

    with atomic_dir(out_dir, overwrite=True, replace_if=(CARD_FILE,)) as tmp:
        torch.save(model.state_dict(), tmp / MODEL_FILE)
        full = {"kind": "graphhop-ssg", "version": 1, "config": asdict(model.cfg), **(card or {})}
        (tmp / CARD_FILE).write_text(json.dumps(full, indent=1) + "\n", encoding="utf-8")
    return Path(out_dir)


def load_ssg(model_dir: str | Path) -> tuple[SSGModel, dict[str, Any]]:
    """Load a model dir written by :func:`save_ssg` (eval mode) and its card."""
    path = Path(model_dir)
    if not (path / CARD_FILE).exists() or not (path / MODEL_FILE).exists():
        raise InputError(f"{path}: not an SSG model dir (needs {MODEL_FILE} and {CARD_FILE})")
    try:
        card = json.loads((path / CARD_FILE).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path / CARD_FILE}: invalid JSON ({exc.msg})") from None
    if card.get("kind") != "graphhop-ssg":
        raise InputError(f"{path / CARD_FILE}: not an SSG model card (kind={card.get('kind')!r})")
    model = SSGModel(SSGConfig.from_card(card.get("config", {})))
    try:
        model.load_state_dict(torch.load(path / MODEL_FILE, map_location="cpu", weights_only=True))
    except (RuntimeError, OSError, EOFError) as exc:
        raise InputError(f"{path / MODEL_FILE}: cannot load the weights ({str(exc).splitlines()[0]})") from None
    return model.eval(), card
