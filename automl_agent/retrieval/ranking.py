"""BM25 ranking (bm25s) of short texts against a query: the bundled knowledge base and the retrieved items are
ranked for the run's question instead of being passed whole."""

from __future__ import annotations

import logging
import re

import bm25s
import numpy as np

logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index-building chatter is not the user's news


def _stem_words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()))


def bm25_scores(texts: list[str], query: str) -> list[float]:
    """A BM25 score per text (0 when no query word occurs in it)."""
    if not texts:
        return []
    corpus = [_stem_words(t) or "empty" for t in texts]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    words = _stem_words(query)
    if not words:
        return [0.0] * len(texts)
    tokens = bm25s.tokenize([words], stopwords="en", show_progress=False)
    documents, scores = retriever.retrieve(tokens, k=len(texts), show_progress=False)
    out = np.zeros(len(texts))
    out[documents[0]] = scores[0]
    return [float(s) for s in out]


def top(texts: list[str], query: str, k: int) -> list[int]:
    """Indices of the k best texts for the query, best first; ties keep the original order."""
    scores = bm25_scores(texts, query)
    return sorted(range(len(texts)), key=lambda i: (-scores[i], i))[:k]
