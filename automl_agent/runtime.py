"""Serving-time building blocks that delivered models pickle a reference to (so keep names stable).

FrameEncoder does what SimpleImputer + StandardScaler + OneHotEncoder in a ColumnTransformer do for a table, in
plain numpy: about a tenth of a millisecond per record instead of several milliseconds, which matters when a
user asks for a per-prediction latency limit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin


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
