"""The BGR model (graph-hop retrieval, Graph-hop paper Sec. 3): configuration, the path-code attention
update, the matcher and its pair features, one model per direction, and the bidirectional model.

Inference (depth-first retrieval, merge rules) is in :mod:`graphhop.retrieve.graphhop`; training in
:mod:`graphhop.train.bgr`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch import nn

from graphhop.core import InputError
from graphhop.models.head_config import EncoderHeadConfig

__all__ = ['MERGE_RULES', 'InferenceSettings', 'BGRConfig', 'PathCodeUpdate', 'Matcher', 'pair_features', 'path_text', 'token_set', 'DirectionModel', 'BGRModel', 'N_PAIR']
#: How the forward and backward graphs are merged (see :func:`graphhop.retrieve.graphhop.merge_graphs`).
MERGE_RULES = ("intersect", "nodes", "union", "backward", "forward")


@dataclass
class InferenceSettings:
    """What BGR's inference chooses on a selection split: each direction's match threshold and most matches
    per step, the merge rule and the union threshold (closed pools: :class:`BGRConfig`; the open setting:
    :class:`~graphhop.retrieve.bgr_open.OpenSettings`)."""

    threshold_forward: float = 0.5
    threshold_backward: float = 0.5
    max_branch: int = 3
    max_branch_backward: int = 3
    merge: str = "intersect"
    union_threshold: float = 0.8

    def threshold(self, direction: str) -> float:
        """The direction's match threshold."""
        return self.threshold_forward if direction == "forward" else self.threshold_backward

    def branch(self, direction: str) -> int:
        """Most candidates matched per step: ``max_branch`` forward, ``max_branch_backward`` backward."""
        return self.max_branch if direction == "forward" else self.max_branch_backward


@dataclass
class BGRConfig(InferenceSettings, EncoderHeadConfig):
    """Model settings (stored in the model card) after the encoder's and the inference settings."""

    dim: int = 256
    hidden: int = 256
    dropout: float = 0.1
    heads: int = 4
    max_depth: int = 4
    max_edges: int = 16
    pair_features: bool = True
    path_text_feature: bool = False
    wide_pair: bool = False
    interactions_only: bool = False
    vector_dropout: float = 0.0
    scalar_after_first: bool = False
    link_feature: bool = False  # the open setting's entity-link weight of each candidate, one more matcher input

    def check(self) -> None:
        """Raise :class:`InputError` on impossible values."""
        if self.dim % self.heads:
            raise InputError(f"dim ({self.dim}) must be a multiple of heads ({self.heads})")
        if self.merge not in MERGE_RULES:
            raise InputError(f"merge rule must be one of {', '.join(MERGE_RULES)}, got {self.merge!r}")
        if self.max_depth < 1 or self.max_edges < 1 or self.max_branch < 1 or self.max_branch_backward < 1:
            raise InputError("max_depth, max_edges and max_branch(_backward) must be >= 1")


class PathCodeUpdate(nn.Module):
    """Attention update of a path code: the code attends over ``[code, new node]``.

    ``h' = LayerNorm(h + MHA(query=h, keys/values=[h, e]))`` followed by a residual feed-forward
    block. Inputs and output are ``[N, dim]``.
    """

    def __init__(self, dim: int, heads: int = 4, dropout: float = 0.1) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.norm1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(2 * dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, code: torch.Tensor, node: torch.Tensor) -> torch.Tensor:
        q = code.unsqueeze(1)
        kv = torch.stack([code, node], dim=1)
        out, _ = self.attn(q, kv, kv, need_weights=False)
        h = self.norm1(code + out.squeeze(1))
        return self.norm2(h + self.ff(h))


class Matcher(nn.Module):
    """Feed-forward matcher: ``[h, e, h*e, |h-e|, q*e (, pair features)] -> logit`` per candidate ``e``.

    ``code`` ``[N, dim]``, ``question`` ``[N, dim]``, ``cands`` ``[N, P, dim]``, optional ``pair``
    ``[N, P, n_pair]`` (see :func:`pair_features`) -> logits ``[N, P]``. With ``wide`` the pair features
    also enter the logit through a linear term (wide & deep), so the few robust scores (cosines, word
    overlap) are not drowned by the 5 × ``dim`` vector inputs the network can memorize. With
    ``interactions_only`` the raw code and candidate vectors are left out (only ``h*e``, ``|h-e|``,
    ``q*e`` and the pair features): the candidate's own vector lets the network learn which sentences
    tend to be positives, which does not carry to unseen questions. ``vector_dropout`` (training only)
    zeroes a whole row's vector block with that probability, so the network must also score from the
    pair features alone. ``n_link`` (0 or 1): one more input, the candidate's entity-link weight in the
    open setting (:meth:`graphhop.retrieve.texthop.HopSearch.linked`: 1 names the question's or the bridge
    entity, 0.5 an older path name, 0 a dense/BM25 fill; 0 where no links are known, e.g. a closed pool).
    """

    def __init__(self, dim: int, hidden: int = 256, dropout: float = 0.1, n_pair: int = 0, wide: bool = False,
                 interactions_only: bool = False, vector_dropout: float = 0.0, n_link: int = 0) -> None:
        super().__init__()
        self.n_pair = n_pair
        self.n_link = n_link
        self.vector_dropout = vector_dropout
        self.interactions_only = interactions_only
        self.wide = nn.Linear(n_pair, 1) if wide and n_pair else None
        self.net = nn.Sequential(
            nn.Linear((3 if interactions_only else 5) * dim + n_pair + n_link, hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, hidden // 2), nn.GELU(),
            nn.Linear(hidden // 2, 1),
        )

    def forward(self, code: torch.Tensor, question: torch.Tensor, cands: torch.Tensor,
                pair: torch.Tensor | None = None, scalar_only: torch.Tensor | None = None,
                link: torch.Tensor | None = None) -> torch.Tensor:
        h = code.unsqueeze(1).expand_as(cands)
        q = question.unsqueeze(1).expand_as(cands)
        parts = [h * cands, (h - cands).abs(), q * cands]
        if not self.interactions_only:
            parts = [h, cands] + parts
        if scalar_only is not None:  # [N] rows or [N, P] cells scored from the pair features alone
            so = scalar_only if scalar_only.dim() == 2 else scalar_only.view(-1, 1).expand(cands.shape[:2])
            keep = (~so).to(cands.dtype).unsqueeze(-1)
            parts = [x * keep for x in parts]
        if self.training and self.vector_dropout > 0:  # drop a row's whole vector block: lean on the pair features
            keep = (torch.rand(cands.shape[0], 1, 1, device=cands.device) >= self.vector_dropout).to(cands.dtype)
            parts = [x * keep / (1 - self.vector_dropout) for x in parts]
        if self.n_pair:
            pair = pair if pair is not None else cands.new_zeros(*cands.shape[:2], self.n_pair)
            parts.append(pair)
        if self.n_link:
            parts.append(link if link is not None else cands.new_zeros(*cands.shape[:2], self.n_link))
        out = self.net(torch.cat(parts, dim=-1)).squeeze(-1)
        return out + self.wide(pair).squeeze(-1) if self.wide is not None else out


#: Number of pair features (:func:`pair_features`).
N_PAIR = 6


def pair_features(q_vec: np.ndarray, q_tokens: frozenset[str], cand_vecs: np.ndarray, cand_tokens: Sequence[frozenset[str]],
                  last_vec: np.ndarray | None, last_tokens: frozenset[str], path_tokens: frozenset[str],
                  path_vec: np.ndarray | None = None) -> np.ndarray:
    """Per-candidate features of (question, path, candidate), ``[P, N_PAIR]`` (``+1`` with ``path_vec``).

    Encoder cosine to the question and to the path's last node; the share of the candidate's words
    found in the question, in the last node, in the question plus the whole path; the share of the
    question's words found in the candidate. Words: :func:`graphhop.retrieve.baselines.tokenize`.
    The last-node features are 0 at the first step (the path is only the question). With
    ``path_vec`` (the encoder vector of ``question [SEP] path texts``, see :func:`path_text`) a last
    column holds the candidates' cosine to it: the MDR query, as one more signal for the matcher.
    """
    out = np.zeros((len(cand_tokens), N_PAIR + (path_vec is not None)), dtype=np.float32)
    if path_vec is not None:
        out[:, N_PAIR] = cand_vecs @ path_vec
    out[:, 0] = cand_vecs @ q_vec
    if last_vec is not None:
        out[:, 1] = cand_vecs @ last_vec
    context = q_tokens | path_tokens
    for i, ct in enumerate(cand_tokens):
        n = max(len(ct), 1)
        out[i, 2] = len(ct & q_tokens) / n
        out[i, 3] = len(ct & last_tokens) / n
        out[i, 4] = len(ct & context) / n
        out[i, 5] = len(ct & q_tokens) / max(len(q_tokens), 1)
    return out


def path_text(query: str, texts: Sequence[str], sep: str = " [SEP] ") -> str:
    """``query [SEP] text_1 [SEP] ...``: the text re-encoded for the path-text feature."""
    return sep.join([query, *texts])


def token_set(text: str) -> frozenset[str]:
    """The word set used by :func:`pair_features`."""
    from graphhop.retrieve.baselines import tokenize

    return frozenset(tokenize(text))


class DirectionModel(nn.Module):
    """One direction (forward or backward): projection, path-code update, matcher, question token."""

    def __init__(self, cfg: BGRConfig) -> None:
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(cfg.input_dim, cfg.dim), nn.LayerNorm(cfg.dim))
        self.update = PathCodeUpdate(cfg.dim, cfg.heads, cfg.dropout)
        n_pair = N_PAIR + int(cfg.path_text_feature) if cfg.pair_features else 0
        self.matcher = Matcher(cfg.dim, cfg.hidden, cfg.dropout, n_pair, cfg.wide_pair, cfg.interactions_only,
                               cfg.vector_dropout, int(cfg.link_feature))
        self.question_token = nn.Parameter(torch.randn(cfg.dim) * 0.02)
        self.scalar_after_first = cfg.scalar_after_first

    def path_codes(self, question: torch.Tensor, prefix: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """Path codes after a batch of prefixes.

        ``question`` ``[B, dim]`` (projected), ``prefix`` ``[B, L, dim]`` (projected nodes in path
        order), ``valid`` ``[B, L]`` bool -> ``[B, dim]``. The code starts as the question.
        """
        code = question
        for t in range(prefix.shape[1]):
            if not bool(valid[:, t].any()):
                break
            new = self.update(code, prefix[:, t])
            code = torch.where(valid[:, t : t + 1], new, code)
        return code

    def logits(self, code: torch.Tensor, question: torch.Tensor, cands: torch.Tensor, with_question_token: bool,
               pair: torch.Tensor | None = None, scalar_only: torch.Tensor | None = None,
               link: torch.Tensor | None = None) -> torch.Tensor:
        """Matcher logits over ``cands`` ``[B, P, dim]``; the question token is appended last when asked
        (its pair features and link weight are 0). ``pair`` ``[B, P, n_pair]`` when the model uses pair features;
        ``scalar_only`` ``[B]`` marks rows scored from the pair features alone (``scalar_after_first``);
        ``link`` ``[B, P, 1]`` the candidates' entity-link weights (``link_feature``; zeros when not given)."""
        if with_question_token:
            tok = self.question_token.view(1, 1, -1).expand(cands.shape[0], 1, -1)
            cands = torch.cat([cands, tok], dim=1)
            if pair is not None:
                pair = torch.cat([pair, pair.new_zeros(pair.shape[0], 1, pair.shape[2])], dim=1)
            if link is not None:
                link = torch.cat([link, link.new_zeros(link.shape[0], 1, link.shape[2])], dim=1)
        if scalar_only is not None and with_question_token:  # the question token keeps its vector
            so = scalar_only.view(-1, 1).expand(cands.shape[0], cands.shape[1] - 1)
            scalar_only = torch.cat([so, so.new_zeros(cands.shape[0], 1)], dim=1)
        return self.matcher(code, question, cands, pair, scalar_only, link)


class BGRModel(nn.Module):
    """Forward and backward direction models with separate parameters."""

    def __init__(self, cfg: BGRConfig) -> None:
        super().__init__()
        cfg.check()
        self.cfg = cfg
        self.forward_model = DirectionModel(cfg)
        self.backward_model = DirectionModel(cfg)

    def direction(self, name: str) -> DirectionModel:
        """``forward`` or ``backward``."""
        if name == "forward":
            return self.forward_model
        if name == "backward":
            return self.backward_model
        raise InputError(f"direction must be forward or backward, got {name!r}")
