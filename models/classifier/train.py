"""Trains the cuisine, course and non-food heads from models/cache/classifier/work/ (written by
export-features.mjs) into models/heads/ (committed beside the encoder delta they are fitted to).

    models/.venv/bin/python models/classifier/train.py

All three heads are multinomial logistic regressions (softmax over W·[embedding, extra features] + b) fitted by
full-batch Adam on an L2-regularised, sample-weighted cross-entropy: convex, no randomness, a few seconds on one core.

Procedure for each head (every choice is made on held-out knowledge-base data, never on the eval sets of eval/):
  1. split: whole dishes (every name and alias of a dish) or whole exemplar lines go to held-out when
     sha256(group) % 5 == 0 (export-features.mjs), so held-out names are dishes the head has never seen;
  2. for each configuration of CONFIG_GRID, fit on the train split and score held-out log-loss; keep the best;
  3. fit the softmax temperature on held-out (minimum log-loss), so confidences are calibrated probabilities;
  4. pick the decision threshold on held-out: cuisine: the lowest threshold whose answered accuracy is at least
     TARGET_ANSWERED_ACCURACY ("uncertain" below it); non-food: the food-probability threshold with the best
     non-food F1 when food and non-food weigh the same;
  5. refit on all data with the chosen configuration and write the head (temperature and threshold from 3-4) with
     its metrics to cuisine-head.json / course-head.json / nonfood-head.json, and every metric set to metrics.json.
The course head (main, side, bread, dessert, beverage from the embedding alone) answers for names that have no
course word; its threshold is chosen like the cuisine head's.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# Fitted heads are committed artifacts, like the encoder delta they are fitted to; their inputs are scratch.
OUT = HERE.parent / "heads"
WORK = HERE.parent / "cache" / "classifier" / "work"
HEAD_FORMAT = "menu-intelligence/linear-head@1"

ADAM_STEPS = 250
ADAM_LR = 0.05
TARGET_ANSWERED_ACCURACY = 0.90
# (L2 strength, dish-weight exponent): a dish with n names gives each name weight n**-exponent, so 1.0 makes every
# dish count once and 0 lets dishes with many aliases dominate.
CUISINE_GRID = [(l2, 0.5) for l2 in (1e-5, 3e-5, 1e-4)]
NONFOOD_GRID = [(l2, None) for l2 in (1e-5, 3e-5, 1e-4)]
COURSE_GRID = [(l2, None) for l2 in (3e-5, 1e-4)]
# Non-food class weights: food and non-food weigh the same in total, the three non-food classes equally.
NONFOOD_CLASS_SHARE = np.array([0.5, 1 / 6, 1 / 6, 1 / 6])
F1_TOLERANCE = 0.01


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """Weighted softmax regression by full-batch Adam from zero; deterministic."""
    n, d = x.shape
    w = (w / w.sum()).astype(np.float32)
    onehot = np.zeros((n, n_classes), dtype=np.float32)
    onehot[np.arange(n), y] = 1.0
    W = np.zeros((d, n_classes), dtype=np.float32)
    b = np.zeros(n_classes, dtype=np.float32)
    mW, vW, mb, vb = np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for t in range(1, ADAM_STEPS + 1):
        p = softmax(x @ W + b)
        g = (p - onehot) * w[:, None]
        gW = x.T @ g + l2 * W
        gb = g.sum(axis=0)
        mW = beta1 * mW + (1 - beta1) * gW
        vW = beta2 * vW + (1 - beta2) * gW * gW
        mb = beta1 * mb + (1 - beta1) * gb
        vb = beta2 * vb + (1 - beta2) * gb * gb
        lr = ADAM_LR * np.sqrt(1 - beta2**t) / (1 - beta1**t)
        W -= lr * mW / (np.sqrt(vW) + eps)
        b -= lr * mb / (np.sqrt(vb) + eps)
    return W, b


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y], 1e-12, 1.0))))


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    grid = np.round(np.arange(0.25, 4.0001, 0.01), 2)
    losses = [log_loss(softmax(logits / t), y) for t in grid]
    return float(grid[int(np.argmin(losses))])


def expected_calibration_error(conf: np.ndarray, correct: np.ndarray, bins: int = 10) -> float:
    edges = np.linspace(0, 1, bins + 1)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.mean() * abs(conf[m].mean() - correct[m].mean())
    return float(ece)


def head_json(name: str, encoder: str, labels, extra, W, b, temperature, threshold, metrics, training) -> dict:
    r6 = lambda a: [float(f"{v:.6g}") for v in a]  # noqa: E731 - six significant digits keep the file small
    return {
        "format": HEAD_FORMAT,
        "name": name,
        "encoder": encoder,
        "labels": list(labels),
        "embedding_dim": 384,
        "extra_features": list(extra),
        "temperature": temperature,
        "threshold": threshold,
        "weights": [r6(W[:, c]) for c in range(W.shape[1])],
        "bias": r6(b),
        "metrics": metrics,
        "training": training,
    }


def dump_heldout(kind: str, rows: list[dict], held: np.ndarray, p: np.ndarray, labels) -> None:
    """Held-out predictions of the train-split head, for reading its mistakes (work/ is not committed)."""
    out = [{"t": r["t"], "y": labels[r["y"]], "p": {labels[c]: round(float(p[i, c]), 4) for c in np.argsort(-p[i])[:3]}}
           for i, r in enumerate(r for r, h in zip(rows, held) if h)]
    (WORK / f"heldout-{kind}.json").write_text(json.dumps(out))


def features(vectors: np.ndarray, rows: list[dict], extra_key: str, n_extra: int) -> np.ndarray:
    x = np.zeros((len(rows), vectors.shape[1] + n_extra), dtype=np.float32)
    x[:, : vectors.shape[1]] = vectors[[r["t"] for r in rows]]
    if n_extra == 0:
        return x
    for i, r in enumerate(rows):
        for k in r[extra_key]:
            # cuisine rows list the indices of their one-hot inputs; non-food rows list [index, value] pairs
            if isinstance(k, list):
                x[i, vectors.shape[1] + k[0]] = k[1]
            else:
                x[i, vectors.shape[1] + k] = 1.0
    return x


def train_cuisine(vectors, meta) -> dict:
    rows = json.loads((WORK / "cuisine.json").read_text())
    labels = meta["cuisine_labels"]
    x = features(vectors, rows, "extra", len(meta["cuisine_extra_features"]))
    y = np.array([r["y"] for r in rows])
    dish = np.array([r["dish"] for r in rows])
    held = np.array([r["heldout"] for r in rows]) == 1
    names_per_dish = np.bincount(dish)[dish]

    results = []
    for l2, exponent in CUISINE_GRID:
        w = names_per_dish.astype(float) ** -exponent
        W, b = fit(x[~held], y[~held], w[~held], len(labels), l2)
        logits = x[held] @ W + b
        p = softmax(logits)
        results.append({"l2": l2, "dish_weight_exponent": exponent, "heldout_log_loss": log_loss(p, y[held]),
                        "heldout_accuracy": float((p.argmax(1) == y[held]).mean()), "W": W, "b": b})
        print(f"  cuisine l2={l2:g} exponent={exponent}: held-out log-loss {results[-1]['heldout_log_loss']:.4f} "
              f"accuracy {results[-1]['heldout_accuracy']:.4f}", flush=True)
    best = min(results, key=lambda r: r["heldout_log_loss"])
    logits = x[held] @ best["W"] + best["b"]
    temperature = fit_temperature(logits, y[held])
    p = softmax(logits / temperature)
    conf = p.max(1)
    correct = p.argmax(1) == y[held]

    threshold = 1.0
    for t in np.round(np.arange(0.0, 1.0001, 0.01), 2):
        answered = conf >= t
        if answered.any() and correct[answered].mean() >= TARGET_ANSWERED_ACCURACY:
            threshold = float(t)
            break
    dump_heldout("cuisine", rows, held, p, labels)
    answered = conf >= threshold
    confusions: dict[str, int] = {}
    for yi, pi in zip(y[held][answered & ~correct], p.argmax(1)[answered & ~correct]):
        key = f"{labels[yi]} -> {labels[pi]}"
        confusions[key] = confusions.get(key, 0) + 1
    metrics = {
        "heldout_names": int(held.sum()),
        "heldout_dishes": int(len(set(dish[held]))),
        "heldout_accuracy": round(float(correct.mean()), 4),
        "heldout_log_loss_calibrated": round(log_loss(p, y[held]), 4),
        "heldout_ece": round(expected_calibration_error(conf, correct), 4),
        "threshold": threshold,
        "heldout_answered_accuracy": round(float(correct[answered].mean()), 4),
        "heldout_coverage": round(float(answered.mean()), 4),
        "heldout_top_confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:10]),
        "note": "held-out = dishes never seen in training, so the head alone answers; served items that the knowledge "
                "base names exactly are answered by the dish row instead",
    }
    w = names_per_dish.astype(float) ** -best["dish_weight_exponent"]
    W, b = fit(x, y, w, len(labels), best["l2"])
    training = {"train_names": len(rows), "dishes": meta["dishes"], "l2": best["l2"],
                "dish_weight_exponent": best["dish_weight_exponent"], "adam_steps": ADAM_STEPS, "adam_lr": ADAM_LR,
                "target_answered_accuracy": TARGET_ANSWERED_ACCURACY, "knowledge_sha256": meta["knowledge_sha256"],
                "grid": [{k: v for k, v in r.items() if k not in ("W", "b")} for r in results]}
    return head_json("cuisine-logreg-v1", meta["encoder"], labels, meta["cuisine_extra_features"], W, b,
                     temperature, threshold, metrics, training)


def train_course(vectors, meta) -> dict:
    """Course (main, side, bread, dessert, beverage) from the embedding alone, for names with no course word."""
    rows = json.loads((WORK / "cuisine.json").read_text())
    labels = meta["course_labels"]
    x = features(vectors, rows, "none", 0)
    y = np.array([r["course"] for r in rows])
    dish = np.array([r["dish"] for r in rows])
    held = np.array([r["heldout"] for r in rows]) == 1
    w = np.bincount(dish)[dish].astype(float) ** -0.5
    results = []
    for l2, _ in COURSE_GRID:
        W, b = fit(x[~held], y[~held], w[~held], len(labels), l2)
        p = softmax(x[held] @ W + b)
        results.append({"l2": l2, "heldout_log_loss": log_loss(p, y[held]),
                        "heldout_accuracy": float((p.argmax(1) == y[held]).mean()), "W": W, "b": b})
        print(f"  course l2={l2:g}: held-out log-loss {results[-1]['heldout_log_loss']:.4f} "
              f"accuracy {results[-1]['heldout_accuracy']:.4f}", flush=True)
    best = min(results, key=lambda r: r["heldout_log_loss"])
    logits = x[held] @ best["W"] + best["b"]
    temperature = fit_temperature(logits, y[held])
    p = softmax(logits / temperature)
    conf = p.max(1)
    correct = p.argmax(1) == y[held]
    threshold = 1.0
    for t in np.round(np.arange(0.0, 1.0001, 0.01), 2):
        answered = conf >= t
        if answered.any() and correct[answered].mean() >= TARGET_ANSWERED_ACCURACY:
            threshold = float(t)
            break
    answered = conf >= threshold
    metrics = {
        "heldout_names": int(held.sum()),
        "heldout_accuracy": round(float(correct.mean()), 4),
        "heldout_ece": round(expected_calibration_error(conf, correct), 4),
        "threshold": threshold,
        "heldout_answered_accuracy": round(float(correct[answered].mean()), 4),
        "heldout_coverage": round(float(answered.mean()), 4),
    }
    W, b = fit(x, y, w, len(labels), best["l2"])
    training = {"train_names": len(rows), "l2": best["l2"], "dish_weight_exponent": 0.5, "adam_steps": ADAM_STEPS,
                "adam_lr": ADAM_LR, "target_answered_accuracy": TARGET_ANSWERED_ACCURACY,
                "grid": [{k: v for k, v in r.items() if k not in ("W", "b")} for r in results]}
    return head_json("course-logreg-v1", meta["encoder"], labels, [], W, b, temperature, threshold, metrics, training)


def train_nonfood(vectors, meta) -> dict:
    rows = json.loads((WORK / "nonfood.json").read_text())
    labels = meta["nonfood_labels"]
    x = features(vectors, rows, "lex", len(meta["nonfood_lexical_features"]))
    y = np.array([r["y"] for r in rows])
    held = np.array([r["heldout"] for r in rows]) == 1
    counts = np.bincount(y, minlength=len(labels)).astype(float)
    w = (NONFOOD_CLASS_SHARE / counts)[y]

    results = []
    for l2, _ in NONFOOD_GRID:
        W, b = fit(x[~held], y[~held], w[~held], len(labels), l2)
        p = softmax(x[held] @ W + b)
        # Weighted held-out loss: the same class balance as training, so food's numbers do not drown the rest.
        ll = float(-(w[held] * np.log(np.clip(p[np.arange(held.sum()), y[held]], 1e-12, 1))).sum() / w[held].sum())
        results.append({"l2": l2, "heldout_weighted_log_loss": ll, "W": W, "b": b})
        print(f"  non-food l2={l2:g}: held-out weighted log-loss {ll:.4f}", flush=True)
    best = min(results, key=lambda r: r["heldout_weighted_log_loss"])
    logits = x[held] @ best["W"] + best["b"]
    temperature = fit_temperature(logits, y[held])
    p = softmax(logits / temperature)
    food_p = p[:, 0]
    is_nonfood = y[held] != 0

    # The threshold maximises non-food F1 with food and non-food weighing the same in total (the training balance):
    # the knowledge base's 30:1 ratio of dish names to exemplars says nothing about how many non-food items a
    # menu holds, and a count-weighted F1 would trade most of the recall for a few dish names.
    hw = w[held]

    def prf(t: float, weights: np.ndarray) -> tuple[float, float, float, float, float]:
        pred = food_p < t
        tp = float(weights[pred & is_nonfood].sum())
        fp = float(weights[pred & ~is_nonfood].sum())
        fn = float(weights[~pred & is_nonfood].sum())
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        return tp / max(tp + fp, 1e-12), tp / max(tp + fn, 1e-12), f1, fp, fn

    # The curve is flat near its top, so the lowest threshold within F1_TOLERANCE of the best is taken: a dish
    # flagged as non-food in a restaurant's report costs more than a product left unflagged.
    grid = np.round(np.arange(0.02, 0.981, 0.01), 2)
    f1s = [prf(float(t), hw)[2] for t in grid]
    best_f1 = max(f1s)
    threshold = float(next(t for t, f in zip(grid, f1s) if f >= best_f1 - F1_TOLERANCE))
    dump_heldout("nonfood", rows, held, p, labels)
    pred = food_p < threshold
    nonfood_pred_class = p[:, 1:].argmax(1) + 1
    balanced = prf(threshold, hw)
    counted = prf(threshold, np.ones_like(hw))
    class_ok = int((pred & is_nonfood & (nonfood_pred_class == y[held])).sum())
    metrics = {
        "heldout_rows": int(held.sum()),
        "heldout_nonfood": int(is_nonfood.sum()),
        "threshold_food_probability": threshold,
        "heldout_balanced_precision": round(balanced[0], 4),
        "heldout_balanced_recall": round(balanced[1], 4),
        "heldout_balanced_f1": round(balanced[2], 4),
        "heldout_balanced_f1_best": round(best_f1, 4),
        "heldout_precision": round(counted[0], 4),
        "heldout_recall": round(counted[1], 4),
        "heldout_f1": round(counted[2], 4),
        "heldout_category_accuracy_on_detected": round(class_ok / max(int((pred & is_nonfood).sum()), 1), 4),
        "heldout_false_positives": int(counted[3]),
        "heldout_false_negatives": int(counted[4]),
    }
    W, b = fit(x, y, w, len(labels), best["l2"])
    training = {"rows": len(rows), "class_counts": counts.astype(int).tolist(), "class_share": NONFOOD_CLASS_SHARE.tolist(),
                "l2": best["l2"], "adam_steps": ADAM_STEPS, "adam_lr": ADAM_LR,
                "grid": [{k: v for k, v in r.items() if k not in ("W", "b")} for r in results]}
    return head_json("nonfood-logreg-v1", meta["encoder"], labels, meta["nonfood_lexical_features"], W, b,
                     temperature, threshold, metrics, training)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    meta = json.loads((WORK / "meta.json").read_text())
    texts = json.loads((WORK / "texts.json").read_text())
    vectors = np.fromfile(WORK / "vectors.f32", dtype="<f4").reshape(len(texts), meta["dim"])
    started = time.time()
    print(f"training on {len(texts)} texts embedded by {meta['encoder']}", flush=True)
    cuisine = train_cuisine(vectors, meta)
    course = train_course(vectors, meta)
    nonfood = train_nonfood(vectors, meta)
    seconds = round(time.time() - started, 1)
    for head, file in ((cuisine, "cuisine-head.json"), (course, "course-head.json"), (nonfood, "nonfood-head.json")):
        (OUT / file).write_text(json.dumps(head, separators=(",", ":")) + "\n")
    metrics = {
        "encoder": meta["encoder"],
        "encoder_delta_sha256": meta.get("encoder_delta_sha256"),
        "train_seconds": seconds,
        "cuisine": {"name": cuisine["name"], "temperature": cuisine["temperature"], **cuisine["metrics"],
                    "l2": cuisine["training"]["l2"], "dish_weight_exponent": cuisine["training"]["dish_weight_exponent"]},
        "course": {"name": course["name"], "temperature": course["temperature"], **course["metrics"],
                   "l2": course["training"]["l2"]},
        "nonfood": {"name": nonfood["name"], "temperature": nonfood["temperature"], **nonfood["metrics"],
                    "l2": nonfood["training"]["l2"]},
        "weights_sha256": {f: hashlib.sha256((OUT / f).read_bytes()).hexdigest() for f in ("cuisine-head.json", "course-head.json", "nonfood-head.json")},
    }
    (OUT / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(json.dumps(metrics, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
