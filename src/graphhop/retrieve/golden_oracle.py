"""GoldEn's oracle queries (appendix B): for each hop, the question or context span that best retrieves the
next gold passage — the targets the query generator is trained on, and the oracle ceiling."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Sequence

from graphhop.core import InputError, Ranking
from graphhop.index.directory import Document
from graphhop.retrieve.golden import SEP, STOPWORDS, _WORD, GoldEnSearch, _fold, build_context

__all__ = ["candidate_spans", "OracleQuery", "oracle_query", "OracleHop", "oracle_trajectory"]


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """Word tokens as ``(folded form, start char, end char)``."""
    return [(_fold(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


def _lcsubstring(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """Longest common contiguous token run: ``(start in a, length)`` (first longest)."""
    best, best_end = 0, 0
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        ai = a[i - 1]
        for j in range(1, len(b) + 1):
            if ai == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best, best_end = cur[j], i
        prev = cur
    return best_end - best, best


def _lcsubsequence(a: Sequence[str], b: Sequence[str]) -> list[int]:
    """Positions in ``a`` of one longest common subsequence with ``b``."""
    n, m = len(a), len(b)
    if not n or not m:
        return []
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, nxt = table[i], table[i + 1]
        ai = a[i]
        for j in range(m - 1, -1, -1):
            row[j] = nxt[j + 1] + 1 if ai == b[j] else max(nxt[j], row[j + 1])
    i = j = 0
    out = []
    while i < n and j < m:
        if a[i] == b[j]:
            out.append(i)
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _trim(span: tuple[int, int], forms: Sequence[str]) -> tuple[int, int] | None:
    """Drop stop words at both ends of a token span ``[i, j]``; ``None`` if nothing is left."""
    i, j = span
    while i <= j and forms[i] in STOPWORDS:
        i += 1
    while j >= i and forms[j] in STOPWORDS:
        j -= 1
    return (i, j) if i <= j else None


def candidate_spans(
    context: str, title: str, text: str, max_tokens: int = 30, max_text_tokens: int = 300, merge_window: int = 4
) -> list[tuple[int, int]]:
    """Candidate query spans of ``context`` (char ``(start, end)``) for a target passage.

    - the longest common substring (token run) of the context with the title, and with the text;
    - the context span covering a longest common subsequence with the title, and with the text;
    - overlap-merged spans: runs of context words that occur in the target (lowercased, accents
      folded, stop words ignored), and unions of up to ``merge_window`` neighbouring runs within
      one context segment whose overlap rate (matched / non-stop words) is at least 0.5.

    Spans are trimmed of stop words at both ends, at most ``max_tokens`` words long, and unique.
    """
    toks = _tokens(context)
    if not toks:
        return []
    forms = [t[0] for t in toks]
    title_forms = [t[0] for t in _tokens(title or "")]
    text_forms = [t[0] for t in _tokens(text)][:max_text_tokens]
    spans: list[tuple[int, int]] = []
    for target in (title_forms, text_forms):
        if not target:
            continue
        start, length = _lcsubstring(forms, target)
        if length:
            spans.append((start, start + length - 1))
        pos = _lcsubsequence(forms, target)
        if pos:
            spans.append((pos[0], pos[-1]))
    # segment of each token (0 = question, then one per passage)
    seg_starts = [m.end() for m in re.finditer(re.escape(SEP), context)]
    segment = [sum(1 for s in seg_starts if s <= t[1]) for t in toks]
    vocab = {w for w in title_forms + text_forms if w not in STOPWORDS}
    matched = [f in vocab for f in forms]
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        if matched[i]:
            j = i
            while j + 1 < len(toks) and segment[j + 1] == segment[i] and (
                matched[j + 1] or (forms[j + 1] in STOPWORDS and j + 2 < len(toks) and matched[j + 2])
            ):
                j += 1
            runs.append((i, j))
            i = j + 1
        else:
            i += 1
    for a in range(len(runs)):
        for b in range(a, min(len(runs), a + merge_window)):
            lo, hi = runs[a][0], runs[b][1]
            if segment[lo] != segment[hi]:
                break
            content = [k for k in range(lo, hi + 1) if forms[k] not in STOPWORDS]
            rate = sum(matched[k] for k in content) / max(1, len(content))
            if rate >= 0.5:
                spans.append((lo, hi))
    out: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for span in spans:
        trimmed = _trim(span, forms)
        if trimmed is None or trimmed[1] - trimmed[0] + 1 > max_tokens:
            continue
        chars = (toks[trimmed[0]][1], toks[trimmed[1]][2])
        if chars not in seen:
            seen.add(chars)
            out.append(chars)
    return out


@dataclass(frozen=True, slots=True)
class OracleQuery:
    """The oracle's query: a span ``[start, end)`` of the context, and the target's rank it reaches.

    ``rank`` is 1-based among the searched candidates (``None``: not found in them); ``found`` says
    whether it is within the top ``top`` (5). ``n_candidates`` counts the spans tried.
    """

    query: str
    start: int
    end: int
    rank: int | None
    found: bool
    n_candidates: int


OracleSelect = Literal["shortest", "rank"]


def oracle_query(
    search: GoldEnSearch,
    context: str,
    target: Document,
    top: int = 5,
    max_tokens: int = 30,
    select: OracleSelect = "shortest",
) -> OracleQuery:
    """Search every candidate span; among those that put ``target`` in the top ``top``, the shortest
    (in words) wins (ties: better rank, then earlier) — the paper's rule. ``select="rank"`` prefers the
    best rank instead (ties: shorter, then earlier); on a small corpus the shortest rule picks generic
    words ("song", "one") that happen to suffice. If no span reaches the top ``top``, the candidate
    with the best rank (then the shortest); if the target is never retrieved, the whole question
    (the context's first segment).
    """
    if select not in ("shortest", "rank"):
        raise InputError(f"unknown oracle selection {select!r}; choose shortest or rank")
    spans = candidate_spans(context, target.title, target.text, max_tokens=max_tokens)
    texts = [context[s:e] for s, e in spans]
    results = search.search(texts, search.candidates) if texts else []
    scored = []
    for idx, ((s, e), text, ranking) in enumerate(zip(spans, texts, results)):
        rank = next((r for r, hit in enumerate(ranking, start=1) if hit.id == target.id), None)
        scored.append((rank, len(_WORD.findall(text)), idx, s, e))
    found = [c for c in scored if c[0] is not None and c[0] <= top]
    if found:
        order = (lambda c: (c[1], c[0], c[2])) if select == "shortest" else (lambda c: (c[0], c[1], c[2]))
        rank, _, _, s, e = min(found, key=order)
        return OracleQuery(context[s:e], s, e, rank, True, len(spans))
    ranked = [c for c in scored if c[0] is not None]
    if ranked:
        rank, _, _, s, e = min(ranked, key=lambda c: (c[0], c[1], c[2]))
        return OracleQuery(context[s:e], s, e, rank, False, len(spans))
    end = context.find(SEP)
    end = len(context) if end < 0 else end
    return OracleQuery(context[:end], 0, end, None, False, len(spans))


@dataclass(slots=True)
class OracleHop:
    """One hop of an oracle trajectory: the context, the target passage id and its oracle query.

    ``target`` is ``None`` on the extra *stop* hop after the last gold passage (``query`` is then
    ``None`` too): the learned stop criterion's training signal.
    """

    hop: int
    context: str
    target: str | None
    query: OracleQuery | None
    hits: Ranking = field(default_factory=list)


def oracle_trajectory(
    search: GoldEnSearch,
    question: str,
    gold: Sequence[str],
    ordered: bool = False,
    per_hop: int = 5,
    max_words: int = 50,
    depth: int = 10,
    stop_hop: bool = True,
    select: OracleSelect = "shortest",
) -> list[OracleHop]:
    """Oracle queries hop by hop: hop 1 on the question, hop ``h`` on the question + the top
    ``per_hop`` passages of hop ``h-1`` with that hop's target forced in (replacing the last).

    With ``ordered`` the targets follow ``gold``; otherwise each hop takes the remaining target whose
    oracle query does best (found, then rank, then length) — the paper's "easier one first". Each hop
    keeps the top ``depth`` hits of its query. With ``stop_hop`` a final hop with no target is added.
    ``select`` is passed to :func:`oracle_query`.
    """
    docs = search.index.docs
    missing = [g for g in gold if g not in docs]
    if missing:
        raise InputError(f"gold passage {missing[0]!r} is not in the index {search.index.path}")
    remaining = list(gold)
    context = question.strip()
    out: list[OracleHop] = []
    hop = 0
    while remaining:
        hop += 1
        options = remaining[:1] if ordered else remaining
        best = None
        for target in options:
            oq = oracle_query(search, context, docs[target], top=per_hop, select=select)
            key = (not oq.found, oq.rank if oq.rank is not None else 10**9, len(oq.query.split()))
            if best is None or key < best[0]:
                best = (key, target, oq)
        assert best is not None
        _, target, oq = best
        hits = search.search([oq.query], max(depth, per_hop))[0]
        out.append(OracleHop(hop, context, target, oq, hits))
        remaining.remove(target)
        top_ids = [h.id for h in hits[:per_hop]]
        if target not in top_ids:
            top_ids = (top_ids[: per_hop - 1] if len(top_ids) >= per_hop else top_ids) + [target]
        context = build_context(question, (docs[i] for i in top_ids), max_words)
    if stop_hop:
        out.append(OracleHop(hop + 1, context, None, None, []))
    return out


