"""The eval's raw-vector metrics, per development set, from the trainer's own forward pass: same-dish pair AUC of the
raw cosine (`same_dish_auc_raw_vector_dev`) and nDCG@10 of each menu ranked by the raw cosine to the query
(`search_ndcg_at_10_raw_vector_dev`), with the texts cleaned as the eval embeds them (the teacher export writes them
into models/cache/teacher/dev_eval.json). Sets that holdback.json keeps out of training are reported on their own
("held_back"), beside those trained on ("trained_on"). A search cross-encoder is scored the same way, ranking each whole
menu by its probability.

torch fp32, so within a few thousandths of what `npm run eval -- --dev` prints for the int8 build.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from metrics import auc
from teacher_data import TEACHER_DIR


def load_dev_eval(directory: Path = TEACHER_DIR) -> dict:
    return json.loads((directory / "dev_eval.json").read_text())


def dcg(gains: np.ndarray) -> float:
    return float(((2.0 ** gains - 1) / np.log2(np.arange(len(gains)) + 2)).sum())


def ndcg_at_10(scores: np.ndarray, grades: np.ndarray) -> float:
    order = np.argsort(-scores, kind="stable")[:10]
    ideal = np.sort(grades)[::-1][:10]
    return dcg(grades[order].astype(np.float64)) / dcg(ideal.astype(np.float64))


def _pool(per_set: dict, sets: list[str], weights: dict) -> float:
    n = sum(weights[s] for s in sets)
    return sum(per_set[s] * weights[s] for s in sets) / max(1, n)


def raw_vector_metrics(embed: Callable[[list[str]], np.ndarray], data: dict | None = None) -> dict:
    """`embed(texts)` -> unit vectors [n, d] (one row per text)."""
    data = data or load_dev_eval()
    texts: dict[str, int] = {}
    for m in data["match"]:
        for t in m["a"] + m["b"]:
            texts.setdefault(t, len(texts))
    for s in data["search"]:
        for items in s["menus"].values():
            for t in items:
                texts.setdefault(t, len(texts))
        for q in s["queries"]:
            texts.setdefault(q["query"], len(texts))
    ordered = list(texts)
    vectors = embed(ordered)
    vec = lambda t: vectors[texts[t]]  # noqa: E731

    out: dict = {"auc": {}, "ndcg": {}}
    pooled_scores, pooled_labels, held_scores, held_labels = [], [], [], []
    for m in data["match"]:
        scores = np.array([float(vec(a) @ vec(b)) for a, b in zip(m["a"], m["b"])])
        labels = np.array(m["same"], dtype=bool)
        out["auc"][m["set"]] = auc(scores, labels)
        pooled_scores.append(scores)
        pooled_labels.append(labels)
        if m["held_back"]:
            held_scores.append(scores)
            held_labels.append(labels)
    out["auc"]["pooled"] = auc(np.concatenate(pooled_scores), np.concatenate(pooled_labels))
    out["auc"]["held_back"] = auc(np.concatenate(held_scores), np.concatenate(held_labels))
    counts = {}
    for s in data["search"]:
        values = []
        for q in s["queries"]:
            items = s["menus"][q["menu"]]
            m = np.stack([vec(t) for t in items])
            values.append(ndcg_at_10(m @ vec(q["query"]), np.array(q["grades"], dtype=np.float64)))
        out["ndcg"][s["set"]] = float(np.mean(values))
        counts[s["set"]] = len(values)
    names = [s["set"] for s in data["search"]]
    held = [s["set"] for s in data["search"] if s["held_back"]]
    out["ndcg"]["pooled"] = _pool(out["ndcg"], names, counts)
    out["ndcg"]["held_back"] = _pool(out["ndcg"], held, counts)
    out["ndcg"]["trained_on"] = _pool(out["ndcg"], [n for n in names if n not in held], counts)
    return out


def cross_search_metrics(score: Callable[[list[str], list[str]], np.ndarray], data: dict | None = None,
                         only_held_back: bool = False) -> dict:
    """nDCG@10 of each whole development menu ranked by a search cross-encoder's score(queries, items)."""
    data = data or load_dev_eval()
    out, counts = {}, {}
    for s in data["search"]:
        if only_held_back and not s["held_back"]:
            continue
        values = []
        for q in s["queries"]:
            items = s["menus"][q["menu"]]
            scores = score([q["query"]] * len(items), items)
            values.append(ndcg_at_10(np.asarray(scores), np.array(q["grades"], dtype=np.float64)))
        out[s["set"]] = float(np.mean(values))
        counts[s["set"]] = len(values)
    held = [s["set"] for s in data["search"] if s["held_back"] and s["set"] in out]
    out["held_back"] = _pool(out, held, counts)
    return out


def summary(metrics: dict) -> str:
    a, n = metrics["auc"], metrics["ndcg"]
    return (f"raw AUC pooled {a['pooled']:.4f} held-back {a['held_back']:.4f} | raw nDCG@10 pooled {n['pooled']:.4f} "
            f"held-back {n['held_back']:.4f} trained-on {n['trained_on']:.4f} | "
            + " ".join(f"{k} {v:.4f}" for k, v in n.items() if k.startswith("dev"))
            + " | " + " ".join(f"{k} {v:.4f}" for k, v in a.items() if k not in ("pooled", "held_back")))
