"""Node classification models (PyTorch Geometric), saved with the graph they were trained on.

Node classification here is transductive: the graph is part of the model. `predict` takes node ids (a frame with the
node column, as served records carry them) and answers from one forward pass over the whole stored graph. Weights,
features and edges are kept as numpy and scipy arrays, so the saved model holds only numpy, scipy and sklearn types;
torch rebuilds the network when the model is loaded.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator

KINDS = ("gcn", "graphsage", "gat", "sgc", "feature_mlp", "label_propagation")


class UnknownNodeError(ValueError):
    """A requested node id is not in the graph the model was trained on (a served request's fault, not the model's)."""


class GraphNodeClassifier(BaseEstimator):
    """`kind`: gcn, graphsage, gat (message passing, `layers` deep), sgc (a linear model on `hops`-step propagated
    features), feature_mlp (the node features alone, the graph ignored) or label_propagation (the graph alone, the
    training labels spread along edges; no weights). `hops`: SGC's propagation steps (default 2) or label
    propagation's iterations (default 10). Networks train full-batch with AdamW and early stopping on the
    validation nodes' accuracy."""

    def __init__(self, kind: str = "gcn", node_column: str = "node", hidden: int = 64, layers: int = 2,
                 dropout: float = 0.5, lr: float = 0.01, weight_decay: float = 5e-4, epochs: int = 200,
                 patience: int = 50, heads: int = 4, hops: int | None = None, alpha: float = 0.9, seed: int = 0,
                 time_limit_s: float | None = None):
        self.kind = kind
        self.node_column = node_column
        self.hidden = hidden
        self.layers = layers
        self.dropout = dropout
        self.lr = lr
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.patience = patience
        self.heads = heads
        self.hops = hops
        self.alpha = alpha
        self.seed = seed
        self.time_limit_s = time_limit_s

    # ------------------------------------------------------------ the network
    def _network(self):
        import torch
        from torch_geometric import nn as gnn

        if self.kind not in KINDS:
            raise ValueError(f"unknown graph model kind {self.kind!r}; known: {', '.join(KINDS)}")
        torch.manual_seed(self.seed)
        n_in, n_out = self.features_.shape[1], len(self.classes_)
        common = {"in_channels": n_in, "hidden_channels": int(self.hidden), "num_layers": int(self.layers),
                  "out_channels": n_out, "dropout": float(self.dropout)}
        if self.kind == "gcn":
            return gnn.GCN(**common)
        if self.kind == "graphsage":
            return gnn.GraphSAGE(**common)
        if self.kind == "gat":
            heads = int(self.heads)  # hidden is the width per head
            return gnn.GAT(**{**common, "hidden_channels": int(self.hidden) * heads}, heads=heads)
        if self.kind == "sgc":
            return gnn.SGConv(n_in, n_out, K=int(self.hops or 2), cached=True)
        return gnn.MLP(in_channels=n_in, hidden_channels=int(self.hidden), out_channels=n_out,
                       num_layers=int(self.layers), dropout=float(self.dropout), norm=None)

    def _tensors(self):
        import torch

        x = torch.from_numpy(np.asarray(self.features_.todense(), dtype=np.float32))
        return x, torch.from_numpy(np.asarray(self.edges_, dtype=np.int64))

    def _forward(self, network, x, edges):
        return network(x) if self.kind == "feature_mlp" else network(x, edges)

    # ------------------------------------------------------------ fitting
    def fit(self, graph, train: np.ndarray, val: np.ndarray | None = None) -> "GraphNodeClassifier":
        """Learn from the labels of the `train` nodes of `graph` (a data.graph.GraphData); `val` nodes pick the epoch."""
        self.node_ids_ = np.asarray(graph.node_ids).astype(str)
        self.features_ = sparse.csr_matrix(graph.features, dtype=np.float32)
        self.edges_ = np.asarray(graph.edges, dtype=np.int32)
        self.classes_ = np.unique(np.asarray(graph.labels)[graph.labelled])
        index = {c: i for i, c in enumerate(self.classes_)}
        targets = np.array([index.get(v, -1) for v in np.asarray(graph.labels)])
        self.train_nodes_ = np.asarray(train, dtype=np.int64)
        self.train_labels_ = targets[self.train_nodes_]
        self.n_parameters_ = 0
        self.epochs_trained_ = 0
        self._cache = None
        if self.kind == "label_propagation":
            self.weights_ = {}
            return self
        self._train_network(targets, val)
        return self

    def _train_network(self, targets: np.ndarray, val: np.ndarray | None) -> None:
        import torch
        from torch import nn

        from .devices import training_device

        self.device_ = training_device()
        network = self._network().to(self.device_)
        x, edges = (t.to(self.device_) for t in self._tensors())
        y = torch.from_numpy(targets).long().to(self.device_)
        train = torch.from_numpy(self.train_nodes_).to(self.device_)
        val_index = (torch.from_numpy(np.asarray(val, dtype=np.int64)).to(self.device_)
                     if val is not None and len(val) else None)
        optimiser = torch.optim.AdamW(network.parameters(), lr=float(self.lr), weight_decay=float(self.weight_decay))
        best = (-1.0, float("inf"))
        best_state, since_best, started = None, 0, time.perf_counter()
        for epoch in range(int(self.epochs)):
            network.train()
            optimiser.zero_grad()
            loss = nn.functional.cross_entropy(self._forward(network, x, edges)[train], y[train])
            loss.backward()
            optimiser.step()
            self.epochs_trained_ = epoch + 1
            if val_index is not None:
                network.eval()
                with torch.no_grad():
                    logits = self._forward(network, x, edges)[val_index]
                    score = (float((logits.argmax(1) == y[val_index]).float().mean()),
                             -float(nn.functional.cross_entropy(logits, y[val_index])))
                if score > best:  # accuracy first, validation loss breaks ties
                    best, since_best = score, 0
                    best_state = {k: v.detach().clone() for k, v in network.state_dict().items()}
                else:
                    since_best += 1
                if since_best >= int(self.patience):
                    break
            if self.time_limit_s and time.perf_counter() - started > self.time_limit_s:
                break
        if best_state is not None:
            network.load_state_dict(best_state)
        self.weights_ = {k: v.detach().cpu().numpy() for k, v in network.state_dict().items()}
        self.n_parameters_ = int(sum(p.numel() for p in network.parameters()))

    # ------------------------------------------------------------ predicting
    def _all_probabilities(self) -> np.ndarray:
        import torch

        x, edges = self._tensors()
        if self.kind == "label_propagation":
            from torch_geometric.nn import LabelPropagation

            y = torch.zeros(len(self.node_ids_), dtype=torch.long)
            mask = torch.zeros(len(self.node_ids_), dtype=torch.bool)
            y[torch.from_numpy(self.train_nodes_)] = torch.from_numpy(self.train_labels_).long()
            mask[torch.from_numpy(self.train_nodes_)] = True
            with torch.no_grad():
                scores = LabelPropagation(num_layers=int(self.hops or 10), alpha=float(self.alpha))(y, edges, mask=mask)
            scores = scores[:, :len(self.classes_)] + 1e-9
            return (scores / scores.sum(dim=1, keepdim=True)).numpy()
        network = self._network()
        network.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in self.weights_.items()})
        network.eval()
        with torch.no_grad():
            return torch.softmax(self._forward(network, x, edges), dim=1).numpy()

    def node_index(self, nodes) -> np.ndarray:
        values = nodes[self.node_column].tolist() if isinstance(nodes, pd.DataFrame) else list(nodes)
        lookup = getattr(self, "_lookup", None)
        if lookup is None:
            lookup = self._lookup = {v: i for i, v in enumerate(self.node_ids_.tolist())}
        keys = [str(v).strip() for v in values]
        unknown = [k for k in keys if k not in lookup]
        if unknown:
            raise UnknownNodeError(f"unknown node id(s) {unknown[:3]}: the graph has {len(lookup)} nodes, "
                                   f"e.g. {self.node_ids_[:3].tolist()}")
        return np.array([lookup[k] for k in keys], dtype=np.int64)

    def predict_proba(self, nodes) -> np.ndarray:
        index = self.node_index(nodes)
        if getattr(self, "_cache", None) is None:
            self._cache = self._all_probabilities()
        return self._cache[index]

    def predict(self, nodes) -> np.ndarray:
        return self.classes_[self.predict_proba(nodes).argmax(axis=1)]

    def forget(self) -> None:
        """Drop the cached forward pass (to time a cold prediction)."""
        self._cache = None

    def __getstate__(self):
        state = dict(super().__getstate__())
        for transient in ("_cache", "_lookup"):  # rebuilt on first use
            state.pop(transient, None)
        return state
