"""Graphs for node classification: reading the two formats users bring, with errors that say what to fix.

- Planetoid files (`ind.NAME.x`, `.tx`, `.allx`, `.y`, `.ty`, `.ally`, `.graph`, `.test.index`), as Cora, CiteSeer
  and PubMed ship: `--data` names the folder holding them (or a folder above it with `raw/`). The dataset's own
  train / validation / test masks come with them.
- An edge list plus a node table: a folder with `nodes.csv` (one row per node: an id column, feature columns, the
  label column, optionally a `split` column of train / val / test) and `edges.csv` (source and target node ids),
  or `--data nodes.csv` with `edges.csv` beside it. Nodes with no label are kept in the graph and predicted too.
  A node table without feature columns gets a one-hot node identity as features.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.model_selection import train_test_split

from ..errors import UserFacingError
from .io import read_table

PLANETOID_PARTS = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")
NODE_ID_NAMES = ("node", "node_id", "nodeid", "id", "name", "paper_id", "user_id")
SPLIT_NAMES = ("split", "mask", "subset", "fold")
EDGE_PAIRS = (("source", "target"), ("src", "dst"), ("from", "to"), ("u", "v"), ("node1", "node2"))
PLANETOID_LABEL = "label"
PLANETOID_NODE = "node"


@dataclass
class GraphData:
    """A graph with one row per node: ids, features, labels ('' where unknown) and undirected edges as index
    pairs; `masks` holds the dataset's own train / val / test masks when it has them."""

    node_ids: np.ndarray
    features: sparse.csr_matrix
    labels: np.ndarray
    edges: np.ndarray
    format: str
    node_column: str
    label_column: str
    feature_names: list[str] = field(default_factory=list)
    feature_kind: str = "numeric"
    masks: dict[str, np.ndarray] | None = None
    table: pd.DataFrame | None = None  # an edge list's node table as given

    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def labelled(self) -> np.ndarray:
        return np.flatnonzero(self.labels != "")

    def node_table(self) -> pd.DataFrame:
        """The nodes as a table, one row per node: the node table as given, or for Planetoid files the ids and
        labels. The profile (and so the choice of label column) and the class balance are measured on it."""
        if self.table is not None:
            return self.table
        return pd.DataFrame({self.node_column: self.node_ids,
                             self.label_column: pd.Series(self.labels).replace("", np.nan)})


# ---------------------------------------------------------------- finding the format
def planetoid_folder(path: Path) -> tuple[Path, str] | None:
    """The folder holding `ind.NAME.*` files under `path` (itself, raw/, or NAME/raw/), and NAME."""
    if not path.is_dir():
        return None
    for folder in (path, path / "raw", *sorted(path.glob("*/raw"))):
        found = sorted(folder.glob("ind.*.*")) if folder.is_dir() else []
        if found:  # any of the eight files: the loader names the ones missing
            return folder, found[0].name.split(".")[1]
    return None


def edge_list_files(path: Path) -> tuple[Path, Path] | None:
    """(nodes table, edges table) for a folder holding both, or for a node table with edges.csv beside it."""
    if path.is_dir():
        nodes = _first_existing(path, "nodes")
        edges = _first_existing(path, "edges")
        return (nodes, edges) if nodes and edges else None
    edges = _first_existing(path.parent, "edges")
    if path.is_file() and edges is not None and edges != path:
        return path, edges
    return None


def _first_existing(folder: Path, stem: str) -> Path | None:
    return next((folder / f"{stem}{s}" for s in (".csv", ".tsv", ".parquet") if (folder / f"{stem}{s}").exists()), None)


def is_graph_input(path: str | Path) -> bool:
    path = Path(path)
    return planetoid_folder(path) is not None or edge_list_files(path) is not None


# ---------------------------------------------------------------- reading
def load_graph(path: str | Path, target: str | None = None, node_column: str | None = None) -> GraphData:
    path = Path(path)
    planetoid = planetoid_folder(path)
    if planetoid is not None:
        return _read_planetoid(*planetoid)
    files = edge_list_files(path)
    if files is None:
        raise UserFacingError(
            f"{path} is not a graph this tool can read.",
            "Give a folder of Planetoid files (ind.NAME.x, ind.NAME.graph, ...) or a folder with nodes.csv "
            "(id, features, label) and edges.csv (source, target).")
    return _read_edge_list(*files, target=target, node_column=node_column)


def _read_planetoid(folder: Path, name: str) -> GraphData:
    missing = [p for p in PLANETOID_PARTS if not (folder / f"ind.{name}.{p}").exists()]
    if missing:
        raise UserFacingError(f"The Planetoid files of {name!r} in {folder} lack {', '.join(f'ind.{name}.{m}' for m in missing)}.",
                              "Copy all eight ind.NAME.* files of the dataset into the folder.")
    from torch_geometric.io import read_planetoid_data

    try:
        data = read_planetoid_data(str(folder), name)
    except Exception as exc:  # a truncated or foreign pickle: say which files, not where torch_geometric failed
        raise UserFacingError(f"Could not read the Planetoid files of {name!r} in {folder}: {exc}",
                              "Check that the ind.* files are the dataset's original, complete files.") from None
    x = data.x.numpy()
    binary = bool(np.isin(x, (0.0, 1.0)).all())
    masks = {part: getattr(data, f"{part}_mask").numpy().astype(bool) for part in ("train", "val", "test")}
    return GraphData(
        node_ids=np.array([str(i) for i in range(data.num_nodes)]), features=sparse.csr_matrix(x, dtype=np.float32),
        labels=data.y.numpy().astype(str), edges=data.edge_index.numpy().astype(np.int64), format="planetoid",
        node_column=PLANETOID_NODE, label_column=PLANETOID_LABEL, feature_names=[],
        feature_kind="binary bag-of-words" if binary else "numeric", masks=masks)


def _read_edge_list(nodes_path: Path, edges_path: Path, target: str | None, node_column: str | None) -> GraphData:
    nodes = read_table(nodes_path)
    node_column = node_column or guess_node_column(nodes)
    if node_column not in nodes.columns:
        raise UserFacingError(f"{nodes_path.name} has no node id column {node_column!r}.",
                              f"Name the id column one of {', '.join(NODE_ID_NAMES)}. Columns are: {', '.join(nodes.columns)}")
    ids = nodes[node_column].astype(str).str.strip()
    if ids.duplicated().any():
        raise UserFacingError(f"{nodes_path.name}: node ids in {node_column!r} repeat (e.g. {ids[ids.duplicated()].iloc[0]!r}).",
                              "Give one row per node.")
    target = target if target in nodes.columns else guess_label_column(nodes, node_column)
    split_column = next((c for c in nodes.columns if c.lower() in SPLIT_NAMES), None)
    feature_columns = [c for c in nodes.columns if c not in {node_column, target, split_column}]
    features, names = _feature_matrix(nodes[feature_columns], len(nodes))
    labels = nodes[target].map(lambda v: "" if pd.isna(v) else str(v)).to_numpy().astype(str) if target else \
        np.full(len(nodes), "", dtype=str)
    return GraphData(
        node_ids=ids.to_numpy().astype(str), features=features, labels=labels,
        edges=_read_edges(edges_path, ids), format="edge_list", node_column=node_column,
        label_column=target or "label", feature_names=names,
        feature_kind="numeric" if names else "one-hot node identity (the table has no feature columns)",
        masks=_split_masks(nodes[split_column], nodes_path.name, split_column) if split_column else None, table=nodes)


def guess_node_column(nodes: pd.DataFrame) -> str:
    named = next((c for c in nodes.columns if c.lower() in NODE_ID_NAMES), None)
    if named:
        return named
    first = nodes.columns[0]
    if nodes[first].is_unique:
        return first
    raise UserFacingError("Could not tell which column of the node table holds the node ids.",
                          f"Call it 'node' or 'id' (unique per row). Columns are: {', '.join(nodes.columns)}")


def guess_label_column(nodes: pd.DataFrame, node_column: str) -> str | None:
    """A non-numeric column with few values, else the last column with few values."""
    candidates = [c for c in nodes.columns if c != node_column and c.lower() not in SPLIT_NAMES
                  and 2 <= nodes[c].nunique() <= 100]
    text = [c for c in candidates if not pd.api.types.is_numeric_dtype(nodes[c])]
    return (text or candidates or [None])[-1]


def _feature_matrix(frame: pd.DataFrame, n_nodes: int) -> tuple[sparse.csr_matrix, list[str]]:
    """Numeric columns as they are, categorical ones one-hot; free text and other many-valued strings are left out."""
    frame = frame[[c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) or frame[c].nunique() <= 50]]
    if frame.shape[1] == 0:
        return sparse.identity(n_nodes, dtype=np.float32, format="csr"), []
    encoded = pd.get_dummies(frame, dummy_na=False, dtype=np.float32)
    values = encoded.astype(np.float32).fillna(0.0).to_numpy()
    return sparse.csr_matrix(values), [str(c) for c in encoded.columns]


def _read_edges(path: Path, ids: pd.Series) -> np.ndarray:
    edges = read_table(path, min_rows=1)
    lowered = {c.lower(): c for c in edges.columns}
    pair = next(((lowered[a], lowered[b]) for a, b in EDGE_PAIRS if a in lowered and b in lowered), None)
    if pair is None:
        if edges.shape[1] < 2:
            raise UserFacingError(f"{path.name} needs two columns: source and target node ids.",
                                  "Write one edge per row as source,target.")
        pair = (edges.columns[0], edges.columns[1])
    position = pd.Series(np.arange(len(ids)), index=ids.to_numpy())
    source, target = edges[pair[0]].astype(str).str.strip(), edges[pair[1]].astype(str).str.strip()
    unknown = sorted(set(source[~source.isin(position.index)]) | set(target[~target.isin(position.index)]))
    if unknown:
        raise UserFacingError(f"{path.name} names {len(unknown)} node(s) that are not in the node table, e.g. {unknown[:3]}.",
                              "Add a row for every node to the node table (features may be empty), or drop those edges.")
    pairs = np.stack([position[source].to_numpy(), position[target].to_numpy()]).astype(np.int64)
    both = np.concatenate([pairs, pairs[::-1]], axis=1)  # friendships, citations, links: used as undirected
    both = both[:, both[0] != both[1]]
    return np.unique(both, axis=1)


def _split_masks(column: pd.Series, file_name: str, name: str) -> dict[str, np.ndarray]:
    values = column.astype(str).str.strip().str.lower().replace({"validation": "val", "valid": "val", "dev": "val"})
    masks = {part: (values == part).to_numpy() for part in ("train", "val", "test")}
    if not masks["train"].any() or not masks["test"].any():
        raise UserFacingError(f"{file_name}: the {name!r} column must mark nodes as train, val or test, with at "
                              f"least one train and one test node (found {sorted(values.unique())[:5]}).",
                              "Fix the column, or drop it to let the tool split the labelled nodes itself.")
    return masks


# ---------------------------------------------------------------- splitting
def split_nodes(graph: GraphData, test_size: float = 0.2, val_size: float = 0.2, seed: int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Train, validation and test node indices: the dataset's own masks when it has them (a missing validation
    mask is carved from the train nodes), else a stratified split of the labelled nodes. The last item says which."""
    labelled = graph.labelled
    if graph.masks is not None:
        train = np.intersect1d(np.flatnonzero(graph.masks["train"]), labelled)
        test = np.intersect1d(np.flatnonzero(graph.masks["test"]), labelled)
        val = np.intersect1d(np.flatnonzero(graph.masks["val"]), labelled)
        if len(val):
            return train, val, test, "the dataset's own train/validation/test masks"
        train, val = _stratified(train, graph.labels, val_size, seed)
        return train, val, test, "the dataset's own train/test masks; validation carved from train"
    rest, test = _stratified(labelled, graph.labels, test_size, seed)
    train, val = _stratified(rest, graph.labels, val_size, seed)
    return train, val, test, "a stratified random split of the labelled nodes"


def _stratified(index: np.ndarray, labels: np.ndarray, size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    values = labels[index]
    counts = pd.Series(values).value_counts()
    stratify = values if counts.min() >= 2 and len(index) * size >= len(counts) else None
    first, second = train_test_split(index, test_size=size, random_state=seed, stratify=stratify)
    return np.sort(first), np.sort(second)


# ---------------------------------------------------------------- profiling
def profile_graph(graph: GraphData, path: str = ""):
    """The node table's profile (node id and label columns) with the graph's measured shape attached."""
    from ..agents.contracts import GraphProfile
    from .profile import profile_table, target_candidates

    table = graph.node_table()
    profile = profile_table(table, path)
    column = profile.column(graph.node_column)
    if column is not None:  # ids are ids whatever they look like
        column.kind = "identifier"
    degree = np.bincount(graph.edges[0], minlength=graph.n_nodes)
    own_split = {part: int(mask.sum()) for part, mask in graph.masks.items()} if graph.masks else None
    known = graph.labels != ""
    if graph.masks is not None:
        known &= ~graph.masks["test"]
    both = known[graph.edges[0]] & known[graph.edges[1]]
    same = graph.labels[graph.edges[0][both]] == graph.labels[graph.edges[1][both]]
    shape = GraphProfile(
        format=graph.format, node_column=graph.node_column, n_nodes=graph.n_nodes, n_edges=int(graph.edges.shape[1] // 2),
        n_features=int(graph.features.shape[1]), feature_kind=graph.feature_kind, feature_names=graph.feature_names[:20],
        n_classes=int(len(np.unique(graph.labels[graph.labelled]))), labelled_nodes=int(len(graph.labelled)),
        own_split=own_split, mean_degree=round(float(degree.mean()), 3), isolated_nodes=int((degree == 0).sum()),
        label_homophily=round(float(same.mean()), 4) if same.size else None)
    others = [c for c in target_candidates(profile.columns, profile.n_rows) if c != graph.label_column]
    return profile.model_copy(update={"graph": shape, "target_candidates": [graph.label_column, *others]})
