"""Evaluation sets and metrics, numpy only: shared by the trainers (torch venv) and evaluate.py (exporter venv)."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

EVAL_DIR = Path(__file__).resolve().parent / "eval"


@dataclass
class PairSet:
    a: list[str]
    b: list[str]
    label: np.ndarray  # 1 same dish, 0 different
    source: list[str]


@dataclass
class RetrievalSet:
    corpus: list[str]
    qids: list[str]
    kinds: list[str]
    queries: list[str]
    grades: np.ndarray  # [queries, corpus] int8


def load_pairs(path: Path = EVAL_DIR / "pairs.tsv") -> PairSet:
    a, b, lab, src = [], [], [], []
    with open(path, encoding="utf8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            a.append(row["text_a"]); b.append(row["text_b"]); lab.append(int(row["label"])); src.append(row["source"])
    return PairSet(a, b, np.array(lab, dtype=np.int8), src)


def load_retrieval(eval_dir: Path = EVAL_DIR) -> RetrievalSet:
    from make_eval import ensure_corpus
    ensure_corpus()
    corpus = [l for l in (eval_dir / "retrieval_corpus.txt").read_text(encoding="utf8").split("\n") if l]
    qids, kinds, queries = [], [], []
    with open(eval_dir / "retrieval_queries.tsv", encoding="utf8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            qids.append(row["qid"]); kinds.append(row["kind"]); queries.append(row["query"])
    grades = np.zeros((len(qids), len(corpus)), dtype=np.int8)
    pos = {q: i for i, q in enumerate(qids)}
    with open(eval_dir / "retrieval_qrels.tsv", encoding="utf8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            grades[pos[row["qid"]], [int(x) for x in row["items"].split(",")]] = int(row["grade"])
    return RetrievalSet(corpus, qids, kinds, queries, grades)


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    s = scores[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def best_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    cands = np.unique(scores)
    mids = np.concatenate([[cands[0] - 1e-6], (cands[:-1] + cands[1:]) / 2, [cands[-1] + 1e-6]])
    accs = [((scores >= t) == (labels == 1)).mean() for t in mids]
    return float(mids[int(np.argmax(accs))])


def cross_fold_accuracy(scores: np.ndarray, labels: np.ndarray, seed: int = 7) -> tuple[float, float]:
    """Accuracy with the threshold chosen on the other half (2-fold, seeded), so the threshold never sees the pairs
    it is scored on.  Returns (accuracy, threshold fitted on all pairs)."""
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(scores)) % 2
    correct = 0
    for k in (0, 1):
        t = best_threshold(scores[fold != k], labels[fold != k])
        correct += ((scores[fold == k] >= t) == (labels[fold == k] == 1)).sum()
    return float(correct / len(scores)), best_threshold(scores, labels)


def fit_platt(scores: np.ndarray, labels: np.ndarray, iters: int = 200) -> tuple[float, float]:
    """Platt scaling: p = sigmoid(a*s + b), fitted by Newton's method on the log loss (with Platt's target smoothing)."""
    y = labels.astype(np.float64)
    n_pos, n_neg = y.sum(), len(y) - y.sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    x = scores.astype(np.float64)
    a, b = 1.0, 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(a * x + b)))
        g = np.array([((p - t) * x).sum(), (p - t).sum()])
        w = p * (1 - p) + 1e-12
        h = np.array([[(w * x * x).sum(), (w * x).sum()], [(w * x).sum(), w.sum()]]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(h, g)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    return float(a), float(b)


def log_loss(p: np.ndarray, labels: np.ndarray) -> float:
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-(labels * np.log(p) + (1 - labels) * np.log(1 - p)).mean())


def pair_metrics(scores: np.ndarray, labels: np.ndarray) -> dict:
    acc, threshold = cross_fold_accuracy(scores, labels)
    return {"auc": auc(scores, labels), "accuracy": acc, "threshold": threshold, "pairs": int(len(labels))}


def ndcg_mrr(score_matrix: np.ndarray, grades: np.ndarray, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Per-query nDCG@k (gain 2^g - 1) and MRR (first item of grade >= 2) from a [queries, corpus] score matrix."""
    n_q = score_matrix.shape[0]
    top = np.argsort(-score_matrix, axis=1, kind="stable")
    discounts = 1 / np.log2(np.arange(2, k + 2))
    ndcg = np.zeros(n_q)
    mrr = np.zeros(n_q)
    for q in range(n_q):
        g = grades[q, top[q]].astype(np.float64)
        dcg = ((2 ** g[:k] - 1) * discounts).sum()
        ideal = np.sort(grades[q])[::-1][:k].astype(np.float64)
        idcg = ((2 ** ideal - 1) * discounts[:len(ideal)]).sum()
        ndcg[q] = dcg / idcg if idcg > 0 else 0.0
        hits = np.nonzero(g >= 2)[0]
        mrr[q] = 1 / (hits[0] + 1) if len(hits) else 0.0
    return ndcg, mrr


def retrieval_metrics(query_emb: np.ndarray, corpus_emb: np.ndarray, rs: RetrievalSet) -> dict:
    ndcg, mrr = ndcg_mrr(query_emb @ corpus_emb.T, rs.grades)
    by_kind = {}
    for kind in sorted(set(rs.kinds)):
        m = np.array([k == kind for k in rs.kinds])
        by_kind[kind] = {"ndcg@10": float(ndcg[m].mean()), "mrr": float(mrr[m].mean()), "queries": int(m.sum())}
    return {"ndcg@10": float(ndcg.mean()), "mrr": float(mrr.mean()), "queries": len(rs.qids), "by_kind": by_kind}


def normalise(x: np.ndarray) -> np.ndarray:
    return x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
