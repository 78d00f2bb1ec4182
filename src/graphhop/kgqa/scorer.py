"""The trained relation-path scorer: a small head over frozen MiniLM vectors.

Inputs, for one question and one candidate relation path:

- ``q``: the MiniLM vector of the question with its topic entity masked (``who directed X``);
- ``h_1..h_k``: the MiniLM vectors of the path's relation *names* (``directed by``), cleaned as
  the KB builder cleans them, so a user's KB with relations the head never saw still gets scored
  by what the names mean; each step adds a learned (position, direction) embedding;
- ``t``: the answer-type vector: the mean vector of the relation names around (up to 20 of) the
  path's end entities (a country has ``currency`` and ``capital``; a city ``located in``);
- zero-shot cosines between ``q`` and each ``h_i`` and ``t``, and the path length.

The head projects ``q``, the steps and ``t`` to 128 dimensions, multiplies them elementwise
(question x path, question x last step, question x answer type) and an MLP gives one score. It is
trained listwise (softmax over every candidate path of a question, the gold relation path the
target), so the score both picks the chain and says when to stop: a 1-hop prefix competes with
its extensions. Weights are a ``.npz`` + ``config.json`` (about 1 MB) shipped in
``graphhop/weights/kgqa``; ``graphhop train kgqa`` rebuilds them.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.paths import RelPath

__all__ = ["MAX_HOPS", "MAX_WORDS", "DEFAULT_WEIGHTS", "WALK_WEIGHTS", "content_words", "answer_noun", "PathBatch", "make_head", "PathScorer",
           "type_relations", "fast_encoder", "RelationWords"]

MAX_HOPS = 4
MAX_WORDS = 12
#: Words that carry no relation meaning (the wh-word and the entity placeholder are read from ``q``).
FUNCTION_WORDS = frozenset("""x s a an the of in on at to for from by with and or not is was are were be been being do does
did has have had can could will would should may might must what which who whom whose where when why how many much that
this these those it its he she they his her their there as than then also any some all each every one ones me my i you
your we our us name names list give tell show find please""".split())


def content_words(text: str) -> list[str]:
    """The question's words that may name a relation (function words and the ``X`` mask dropped)."""
    words = [w for w in text.lower().split() if w.isalpha() and w not in FUNCTION_WORDS and len(w) > 2]
    return list(dict.fromkeys(words))[:MAX_WORDS]


_WH_NOUNS = {"who": "person", "whom": "person", "whose": "person", "where": "place", "when": "year"}


def answer_noun(text: str) -> str | None:
    """The noun that names the asked answer type in a masked question: the first content word
    after ``which``/``what``/``how many`` or ``name``/``list the`` (``in which country was X
    born`` -> ``country``; ``what is the currency of ...`` -> ``currency``), ``person`` for a leading
    who, ``place`` for where, ``year`` for when, the first word of a description (``the club X plays
    for`` -> ``club``); None when the question names no type. The phrase is read by the pipeline's one
    parser (:func:`graphhop.kgqa.end_type.type_phrase`, punctuation kept, as the head was trained)."""
    from graphhop.kgqa.end_type import type_phrase

    toks = text.lower().split()
    if toks[:1] == ["the"] and len(toks) > 1 and toks[1].isalpha() and toks[1] not in FUNCTION_WORDS:
        return toks[1]
    if toks[:1] and toks[0] in _WH_NOUNS:
        return _WH_NOUNS[toks[0]]
    got = type_phrase(text, strip=False)
    if got is None or got.start >= min(len(got.tokens), got.cue + 5):
        return None
    v = got.tokens[got.start]
    return v if v.isalpha() and v not in FUNCTION_WORDS else None


#: Endings of agent nouns (``baker``, ``auctioneer``, ``director``, ``chemist``): the one who does a thing.
_AGENT = ("er", "eer", "or", "ist")


def _singular(word: str) -> str:
    """A plural noun's singular by its spelling (``bakeries`` -> ``bakery``, ``auctions`` -> ``auction``)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1]


#: Verb forms whose noun of the same word family shares no stem with them (English morphology, a closed class):
#: ``born`` / ``birth``, ``died`` / ``death``. A question that says "born in" names ``place of birth`` and
#: ``date of birth`` as much as ``born in``, so a chain by ``country of citizenship`` is a shortcut there (the
#: stems, by :class:`RelationWords`' Snowball stemmer). Session 18 (kgy18).
WORD_FAMILY: dict[str, tuple[str, ...]] = {"born": ("birth",), "die": ("death",), "dead": ("death",)}

_VOWELS = frozenset("aeiouy")


def abbreviations(relation: str) -> list[str]:
    """The abbreviated words of a relation name, as markers :meth:`RelationWords.match` expands: a clipped word
    with its period (``pop.``, ``est.``: at least 3 letters, kept with the period) and an acronym (``HQ``, ``hq``:
    2-4 letters, all capitals or no vowel; kept in capitals). ``pop.`` then names ``population`` and ``HQ``
    ``headquartered``: the question spells out what the KB abbreviates (session 18, kgp18)."""
    out = []
    for raw in relation.replace("_", " ").split():
        word = raw.strip("()[],;:")
        if word.endswith(".") and word[:-1].isalpha() and len(word) >= 4:
            out.append(word.lower())
        elif word.isalpha() and 2 <= len(word) <= 4 and (word.isupper() or not _VOWELS & set(word.lower())):
            out.append(word.upper())
    return list(dict.fromkeys(out))


def _is_abbreviation(marker: str) -> bool:
    """Whether a vocabulary entry is an :func:`abbreviations` marker (a stem is lower case, without a period)."""
    return marker.endswith(".") or marker.isupper()


def _abbreviates(marker: str, stem: str) -> bool:
    """Whether an abbreviation marker names a question word's stem: a clipped word starts it (``pop.`` ->
    ``popul``); an acronym's letters occur in it in order from its first letter, the stem at least four letters a
    capital (``HQ`` -> ``headquart``, ``KM`` -> ``kilometr``; not ``KM`` -> ``kingdom``)."""
    if _is_abbreviation(stem):
        return marker == stem
    if marker.endswith("."):
        return stem.startswith(marker[:-1])
    letters = marker.lower()
    if len(stem) < 4 * len(letters) or stem[0] != letters[0]:
        return False
    rest = iter(stem[1:])
    return all(ch in rest for ch in letters[1:])


class RelationWords:
    """The words of a KB's relation names, for asking which relations a question *names*.

    A question word names a relation when its Snowball stem equals a stem of one of the relation's
    name words, or one stem starts the other and the shorter has at least 4 letters (``founder`` /
    ``founded by``, ``director`` / ``directed by``, ``children`` / ``child``). :meth:`asked` gives
    the stems of the question's content words that name some relation of the KB; :meth:`covered`
    how many of them a relation path uses. A path that leaves a named relation out (``nationality``
    where the question says ``born``, ``flows through`` where it says ``source``) answers for a
    reason the question did not give: a shortcut."""

    def __init__(self, relations: Sequence[str]) -> None:
        import snowballstemmer

        self._stem = snowballstemmer.stemmer("english").stemWord
        self.by_relation = [frozenset(self.stems(clean_relation(r)) + abbreviations(r)) for r in relations]
        self.vocabulary = frozenset().union(*self.by_relation) if self.by_relation else frozenset()
        #: the relation names' own words (lower case), for :meth:`class_nouns`
        self.surface = frozenset(w for r in relations for w in clean_relation(r).lower().split() if w.isalpha())

    def stems(self, text: str) -> list[str]:
        """Stems of the content words of ``text`` (function words and the ``X`` mask dropped)."""
        words = [w.strip("?,.!;:'\"()") for w in text.lower().split()]
        return [self._stem(w) for w in words if w.isalpha() and len(w) > 2 and w not in FUNCTION_WORDS]

    @staticmethod
    def match(a: str, b: str) -> bool:
        """Whether two stems name the same thing (equal, or one a prefix of the other, >= 4 letters). A stem
        Snowball ends in ``i`` (``city``, ``cities`` -> ``citi``; ``company`` -> ``compani``) is a whole word's
        and names only itself: ``citi`` does not name ``citizen of`` (session 11, kgc12: mu24)."""
        if a != b and (_is_abbreviation(a) or _is_abbreviation(b)):
            return _abbreviates(a, b) if _is_abbreviation(a) else _abbreviates(b, a)
        short = a if len(a) <= len(b) else b
        return a == b or (len(short) >= 4 and not short.endswith("i") and (a.startswith(b) or b.startswith(a)))

    def asked(self, text: str) -> list[str]:
        """The stems of ``text``'s words that name a relation of the KB; a word whose own stem names none is read by
        its noun of the same family when that one does (:data:`WORD_FAMILY`: ``born`` names ``place of birth``)."""
        out = []
        for s in self.stems(text):
            names = [s] if any(self.match(s, v) for v in self.vocabulary) else [
                k for k in WORD_FAMILY.get(s, ()) if any(self.match(k, v) for v in self.vocabulary)]
            out.extend(names)
        return list(dict.fromkeys(out))

    def class_nouns(self, text: str) -> list[str]:
        """The stems of ``text``'s plural nouns that name a relation only through an agent noun built on a related
        stem (``bakeries`` ~ ``head baker``, ``auctions`` ~ ``auctioneer``): the word names a class of things (the
        bakeries, the auctions), not the person the relation leads to, so it does not name that relation the way
        ``children`` names ``children`` or ``founders`` names ``founded by``. A relation whose own word is the
        noun's singular (``includes lot`` for ``lots``), or any other noun that is not an agent noun, keeps the word a
        relation's name; verb forms (``first baked``, ``located in`` for ``locations``) are not weighed: a noun of the
        action may name its verb's relation. Session 17 (kgv17)."""
        out, toks = [], [w.strip("?,.!;:'\"()") for w in text.lower().split()]
        for i, w in enumerate(toks):
            if i and toks[i - 1] in ("who", "that"):
                continue  # a verb after its subject: "who **manages** the team" names ``manager``
            if not w.isalpha() or len(w) <= 3 or w in FUNCTION_WORDS or not w.endswith("s") or w.endswith("ss"):
                continue
            stem, single = self._stem(w), _singular(w)
            named = [v for v in self.surface if self.match(stem, self._stem(v)) and not v.endswith(("ed", "ing"))]
            if named and all(v not in (w, single) and v.endswith(_AGENT) and not single.endswith(_AGENT) for v in named):
                out.append(stem)
        return list(dict.fromkeys(out))

    def relations_named(self, stems: Sequence[str]) -> list[int]:
        """Ids of the relations one of whose name words ``stems`` name (:meth:`match`), in store order."""
        return [r for r, names in enumerate(self.by_relation) if any(self.match(a, v) for a in stems for v in names)]

    def covered(self, asked: Sequence[str], steps: Sequence[tuple[int, bool]]) -> int:
        """How many of ``asked`` the relations of ``steps`` name."""
        rels = [self.by_relation[r] for r, _ in steps]
        return sum(any(self.match(a, v) for words in rels for v in words) for a in asked)

    def unnamed(self, asked: Sequence[str], steps: Sequence[tuple[int, bool]]) -> int:
        """How many steps of a path take a relation that none of ``asked`` names."""
        return sum(not any(self.match(a, v) for a in asked for v in self.by_relation[r]) for r, _ in steps)


DEFAULT_WEIGHTS = Path(str(resources.files("graphhop") / "weights" / "kgqa"))
#: The walk reader's own copy of a head (:mod:`graphhop.read.walk_scorer`), so that retraining the KGQA
#: head (``DEFAULT_WEIGHTS``) cannot move the text figures; it is replaced only on the text suites' evidence.
WALK_WEIGHTS = Path(str(resources.files("graphhop") / "weights" / "walk"))


class PathBatch:
    """Candidate paths as index arrays into a relation-vector table (what the head reads)."""

    def __init__(self, steps: Sequence[Sequence[tuple[int, bool]]], types: Sequence[Sequence[int]]) -> None:
        n = len(steps)
        self.rel = np.zeros((n, MAX_HOPS), dtype=np.int64)
        self.dirs = np.zeros((n, MAX_HOPS), dtype=np.int64)
        self.mask = np.zeros((n, MAX_HOPS), dtype=np.float32)
        self.length = np.zeros(n, dtype=np.int64)
        for i, path in enumerate(steps):
            for j, (r, fwd) in enumerate(path[:MAX_HOPS]):
                self.rel[i, j], self.dirs[i, j], self.mask[i, j] = r, 0 if fwd else 1, 1.0
            self.length[i] = min(len(path), MAX_HOPS)
        flat = [list(t) or [0] for t in types]
        self.type_idx = np.asarray([r for t in flat for r in t], dtype=np.int64)
        self.type_off = np.cumsum([0] + [len(t) for t in flat[:-1]]).astype(np.int64)


def make_head(dim: int = 384, width: int = 128, signed_types: bool = True):
    """The torch module (built lazily: importing this file does not import torch). With
    ``signed_types`` the answer-type signature keeps each relation's direction (a country is the
    *tail* of ``located in``, a city its head) and two extra features match the question's words
    against it (the shipped head; older heads read the signature unsigned)."""
    import torch
    from torch import nn

    class PathHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q = nn.Linear(dim, width)
            self.h = nn.Linear(dim, width)
            self.t = nn.Linear(dim, width)
            self.t_in = nn.Linear(dim, width) if signed_types else None
            self.a = nn.Linear(dim, width) if signed_types else None
            self.pos = nn.Embedding(MAX_HOPS * 2, width)
            extra = (width + 9) if signed_types else 0
            self.mlp = nn.Sequential(nn.Linear(3 * width + 10 + extra + MAX_HOPS, width), nn.ReLU(), nn.Linear(width, 1))

        def forward(self, q, qidx, table, rel, dirs, mask, length, type_idx, type_off, wtab, widx, wmask, answer=None):  # noqa: D401
            """Scores of ``n`` paths; ``q`` holds one vector per question, ``qidx`` maps paths to
            questions; ``wtab[widx]`` are each question's content words (``wmask`` marks real ones);
            ``answer`` holds each question's answer-type noun vector (zeros where it names none)."""
            n = rel.shape[0]
            rows = torch.arange(n, device=rel.device)
            ht = self.h(table)  # relation names projected once: [R, width]
            pos = torch.arange(MAX_HOPS, device=rel.device)[None, :] * 2 + dirs
            h = torch.tanh(ht[rel] + self.pos(pos)) * mask[..., None]
            last = h[rows, length - 1]
            tv = nn.functional.embedding_bag(type_idx // 2, table, type_off, mode="mean")
            if self.t_in is None:
                t = torch.tanh(self.t(tv))
            else:  # signed relation 2r (entity is the head of r) or 2r+1 (its tail)
                signed = torch.stack([self.t(table), self.t_in(table)], 1).reshape(-1, self.t.out_features)
                t = torch.tanh(nn.functional.embedding_bag(type_idx, signed, type_off, mode="mean"))
            qp = torch.tanh(self.q(q))[qidx]
            qn = nn.functional.normalize(q, dim=-1)
            cos = (qn @ nn.functional.normalize(table, dim=-1).T)[qidx[:, None], rel]
            big = torch.full_like(cos, 9.0)
            feats = [
                (cos * mask).sum(1, keepdim=True) / length[:, None],
                torch.where(mask > 0, cos, -big).max(1, keepdim=True).values,
                torch.where(mask > 0, cos, big).min(1, keepdim=True).values,
                cos[rows, length - 1][:, None],
                (qn[qidx] * nn.functional.normalize(tv, dim=-1)).sum(-1, keepdim=True),
                torch.ones((n, 1), device=rel.device),
                *_coverage(nn.functional.normalize(wtab, dim=-1)[widx][qidx], wmask[qidx],
                           nn.functional.normalize(table, dim=-1)[rel], mask, length),
            ]
            if self.t_in is not None:
                tabn = nn.functional.normalize(table, dim=-1)
                feats += _type_match(nn.functional.normalize(wtab, dim=-1)[widx], wmask, qidx, tabn, type_idx // 2,
                                     type_off, rel, mask)
                answer = torch.zeros_like(q) if answer is None else answer
                feats += _answer_type(answer, qidx, tabn, type_idx, type_off, rel[rows, length - 1])
                feats.append(torch.tanh(self.a(answer))[qidx] * t)
            onehot = nn.functional.one_hot(length - 1, MAX_HOPS).float()
            x = torch.cat([qp * h.sum(1), qp * last, qp * t, *feats, onehot], dim=-1)
            return self.mlp(x).squeeze(-1)

    return PathHead()


def _coverage(words, wmask, hops, hmask, length):
    """How well the path's relations cover the question's content words, and the reverse."""
    import torch

    cos = torch.einsum("nwd,nld->nwl", words, hops)  # [n, W, L]
    big = 9.0
    per_word = torch.where(hmask[:, None, :] > 0, cos, torch.full_like(cos, -big)).max(2).values  # [n, W]
    nwords = wmask.sum(1).clamp(min=1)
    qcov = (per_word * wmask).sum(1, keepdim=True) / nwords[:, None]
    per_hop = torch.where(wmask[:, :, None] > 0, cos, torch.full_like(cos, -big)).max(1).values  # [n, L]
    per_hop = torch.where(wmask.sum(1, keepdim=True) > 0, per_hop, torch.zeros_like(per_hop))
    pcov = (per_hop * hmask).sum(1, keepdim=True) / length[:, None]
    pmin = torch.where(hmask > 0, per_hop, torch.full_like(per_hop, big)).min(1, keepdim=True).values
    plast = per_hop[torch.arange(per_hop.shape[0]), length - 1][:, None]
    return [qcov, pcov, pmin, plast]


def _type_match(words, wmask, qidx, table, type_rel, type_off, rel, hmask):
    """Answer typing from the question's words: for each word, its best cosine with the
    relations around the path's ends; the mean over words of max(that, its best cosine with
    the path's own relations), and the best word's type cosine (``country`` vs ``currency``)."""
    import torch
    from torch import nn

    nq, nw, d = words.shape
    cos = table @ words.reshape(nq * nw, d).T  # [R, nq*W]
    per_path = nn.functional.embedding_bag(type_rel, cos, type_off, mode="max")  # [n, nq*W]
    cols = qidx[:, None] * nw + torch.arange(nw, device=rel.device)[None, :]
    tcos = per_path.gather(1, cols)  # [n, W]
    pcos = torch.einsum("nwd,nld->nwl", words[qidx], table[rel])
    pcos = torch.where(hmask[:, None, :] > 0, pcos, torch.full_like(pcos, -9.0)).max(2).values
    m = wmask[qidx]
    nwords = m.sum(1).clamp(min=1)
    both = (torch.maximum(tcos, pcos) * m).sum(1, keepdim=True) / nwords[:, None]
    best = torch.where(m > 0, tcos, torch.full_like(tcos, -9.0)).max(1, keepdim=True).values
    return [both, torch.where(m.sum(1, keepdim=True) > 0, best, torch.zeros_like(best))]


def _answer_type(answer, qidx, table, type_idx, type_off, last_rel):
    """The asked answer type (``country`` in "in which country ...") against the path: its
    cosine with the last relation, and its best / mean cosine with the ends' relations as
    head (``has currency``) and as tail (``located in`` it), plus whether a type is named."""
    import torch
    from torch import nn

    an = nn.functional.normalize(answer, dim=-1)
    named = (answer.abs().sum(-1) > 0).float()[qidx][:, None]
    vals = (table @ an.T)[type_idx // 2].gather(1, _qidx_of(type_idx, type_off, qidx)).squeeze(1)  # [N]
    flat = torch.arange(len(vals), device=vals.device)
    outs = []
    for side in (0, 1):  # the ends as heads, then as tails, of the relation
        fill = torch.where(type_idx % 2 == side, vals, torch.full_like(vals, -1.0))
        outs.append(nn.functional.embedding_bag(flat, fill[:, None], type_off, mode="max"))
    last = (table[last_rel] * an[qidx]).sum(-1, keepdim=True)
    mean = nn.functional.embedding_bag(flat, vals[:, None], type_off, mode="mean")
    return [last, *outs, mean, named, named * last, named * torch.maximum(*outs)]


def _qidx_of(type_idx, type_off, qidx):
    """The question index of each entry of the flat type list (paths own type_off..next)."""
    import torch

    owner = torch.zeros(len(type_idx), dtype=torch.long, device=type_idx.device)
    owner[type_off[1:]] = 1
    return qidx[owner.cumsum(0)][:, None]


def type_relations(store: KGStore, ends: np.ndarray, sample: int = 20) -> list[int]:
    """Signed relations around (the first ``sample`` of) ``ends``, the answer-type signature:
    ``2 * r`` where the ends are heads of relation ``r``, ``2 * r + 1`` where they are tails."""
    nodes = ends[:sample]
    if len(nodes) == 0:
        return []
    return sorted({2 * r + (0 if fwd else 1) for r, fwd in store.signed_relations(nodes)})


def fast_encoder() -> Any:
    """The bundled MiniLM exported to ONNX (once per machine, cached; vectors equal to the torch model's
    within 1e-6) and run by onnxruntime + tokenizers: ``ask`` then never imports sentence-transformers,
    which is most of its cold start. The torch model where onnxruntime or the export is unavailable."""
    from graphhop.models.backends import load_backend

    try:
        return load_backend("onnx")
    except (ImportError, OSError, RuntimeError) as exc:  # no onnxruntime / onnx, or the export failed
        import warnings

        warnings.warn(f"kgqa: ONNX encoder unavailable ({exc}); using the torch model", stacklevel=2)
        return load_backend("torch")


class PathScorer:
    """Scores relation paths against a question with the trained head (see the module docstring)."""

    def __init__(self, head: Any, config: dict[str, Any], encoder: Any = None) -> None:
        self.head = head.eval()
        self.config = config
        self._encoder = encoder
        self._rel_cache: dict[int, tuple[KGStore, np.ndarray]] = {}
        self._words: dict[str, np.ndarray] = {}

    @classmethod
    def load(cls, path: str | Path | None = None, encoder: Any = None) -> "PathScorer":
        """The shipped weights (default) or a directory written by :meth:`save`."""
        import torch

        folder = Path(path) if path is not None else DEFAULT_WEIGHTS
        if not (folder / "config.json").is_file() or not (folder / "head.npz").is_file():
            raise InputError(f"{folder}: not a KGQA scorer (needs config.json and head.npz; `graphhop train kgqa` writes one)")
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        head = make_head(config.get("dim", 384), config.get("width", 128), config.get("signed_types", False))
        with np.load(folder / "head.npz") as arrays:
            head.load_state_dict({k: torch.from_numpy(arrays[k]) for k in arrays.files})
        return cls(head, config, encoder)

    def save(self, folder: str | Path, extra: dict[str, Any] | None = None) -> None:
        """Write ``head.npz`` + ``config.json`` into ``folder`` (which must exist)."""
        folder = Path(folder)
        arrays = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.head.state_dict().items()}
        np.savez(folder / "head.npz", **arrays)
        (folder / "config.json").write_text(json.dumps({**self.config, **(extra or {})}, indent=2), encoding="utf-8")

    @property
    def encoder(self) -> Any:
        """The bundled MiniLM (:func:`fast_encoder`), loaded on first use."""
        if self._encoder is None:
            self._encoder = fast_encoder()
        return self._encoder

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit MiniLM vectors of ``texts``."""
        vecs = self.encoder.encode(list(texts), batch_size=128, convert_to_numpy=True, normalize_embeddings=True)
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), -1)

    def word_vectors(self, words: Sequence[str]) -> np.ndarray:
        """Unit MiniLM vectors of single words, cached."""
        missing = [w for w in dict.fromkeys(words) if w not in self._words]
        if missing:
            for w, v in zip(missing, self.encode(missing)):
                self._words[w] = v
        if not words:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._words[w] for w in words])

    def question_words(self, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(wtab, widx, wmask)`` of one masked question's content words (see :func:`content_words`)."""
        words = content_words(text)
        wtab = self.word_vectors(words) if words else np.zeros((1, 384), dtype=np.float32)
        widx = np.zeros((1, MAX_WORDS), dtype=np.int64)
        wmask = np.zeros((1, MAX_WORDS), dtype=np.float32)
        widx[0, : len(words)] = np.arange(len(words))
        wmask[0, : len(words)] = 1.0
        return wtab, widx, wmask

    def relation_vectors(self, store: KGStore) -> np.ndarray:
        """One vector per relation of ``store`` (its cleaned name), cached per store."""
        cached = self._rel_cache.get(id(store))
        if cached is None or cached[0] is not store:
            cached = (store, self.encode([clean_relation(r) for r in store.relations]))
            self._rel_cache[id(store)] = cached
        return cached[1]

    def answer_vector(self, text: str) -> np.ndarray:
        """The MiniLM vector of the masked question's :func:`answer_noun` (zeros when none)."""
        noun = answer_noun(text)
        return self.word_vectors([noun])[0] if noun else np.zeros(384, dtype=np.float32)

    def score_batch(self, q: np.ndarray, rel_table: np.ndarray, batch: PathBatch,
                    words: tuple[np.ndarray, np.ndarray, np.ndarray], answer: np.ndarray | None = None) -> np.ndarray:
        """Raw scores of a :class:`PathBatch` for one question vector ``q``, its words and answer noun."""
        import torch

        n = len(batch.length)
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
        with torch.no_grad():
            out = self.head(t(q[None, :].astype(np.float32)), torch.zeros(n, dtype=torch.long), t(rel_table), t(batch.rel),
                            t(batch.dirs), t(batch.mask), t(batch.length), t(batch.type_idx), t(batch.type_off),
                            *(t(w) for w in words), None if answer is None else t(answer[None, :].astype(np.float32)))
        return out.numpy()

    def score_paths(self, q: np.ndarray, store: KGStore, paths: Sequence[RelPath], text: str) -> np.ndarray:
        """Scores of relation paths over ``store`` for the question vector ``q`` of masked ``text``."""
        batch = PathBatch([p.steps for p in paths], [type_relations(store, p.ends) for p in paths])
        return self.score_batch(q, self.relation_vectors(store), batch, self.question_words(text), self.answer_vector(text))
