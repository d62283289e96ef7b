"""Reading an instruction the way its writer meant it: the target column, whether it is a learning request at all,
and how sure we are. Used by the offline brain and as the cross-check of any other brain's answer."""

from __future__ import annotations

from .language import Canonical, canonical, data_names
from .request import judge_request
from .target import (NAMED, TargetDecision, classifiable, decide_target, eligible_columns, held_labels,
                     named_but_unusable)


def read_as(instruction: str, columns, data_path: str | None = None) -> str:
    """The instruction in the one form the rules read (see language.canonical); columns are the table's names, which
    are never translated; the data's own name (its file's) said as the data's names no column."""
    return canonical(instruction, tuple(str(c) for c in columns), data_names(data_path)).text


def sentence_encoder():
    """similarity(phrase, texts) -> list of cosine similarities, from the bundled MiniLM encoder; None when the
    [text] extra is not installed."""
    from ...trainkit.runtime import minilm_encoder, minilm_available

    if not minilm_available():
        return None

    def similarity(phrase: str, texts: list[str]) -> list[float]:
        vectors = _encoded([phrase, *texts], minilm_encoder())
        return [float(vectors[0] @ v) for v in vectors[1:]]

    return similarity


_VECTORS: dict[str, object] = {}  # text -> its unit vector: a table's column descriptions recur in every instruction


def _encoded(texts: list[str], encoder) -> list:
    missing = [t for t in dict.fromkeys(texts) if t not in _VECTORS]
    if missing:
        if len(_VECTORS) > 20_000:
            _VECTORS.clear()
        _VECTORS.update(zip(missing, encoder.encode(missing, normalize_embeddings=True, show_progress_bar=False)))
    return [_VECTORS[t] for t in texts]


__all__ = ["Canonical", "canonical", "data_names", "read_as", "NAMED", "TargetDecision", "classifiable", "decide_target", "eligible_columns", "held_labels", "named_but_unusable", "judge_request",
           "sentence_encoder"]
