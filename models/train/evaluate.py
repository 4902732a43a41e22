"""Held-out evaluation of the built (int8, as served) models: base vs tuned, side by side.

    models/.venv/bin/python models/train/evaluate.py [--json OUT]

Reads models/build/manifest.lock.json and the committed held-out sets in models/train/eval/ (the retrieval corpus is
rebuilt from ../shared/data and checked against its committed sha256).  numpy + onnxruntime + tokenizers only, so
it runs in the exporter's venv; no torch.

  same-dish pairs:  AUC and accuracy (threshold chosen on the other half, 2-fold) for cosine of each bi-encoder and
                    for the cross-encoder logits
  retrieval:        nDCG@10 and MRR of each bi-encoder at 384, and at 256/128 by PCA projection and by prefix
                    truncation; and tuned bi-encoder top-50 reranked by the cross-encoder
  speed:            int8 encoder latency (batch 1, p50) tuned vs base, and cross-encoder pairs/s (batch 32)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from metrics import load_pairs, load_retrieval, ndcg_mrr, normalise, pair_metrics, retrieval_metrics  # noqa: E402

ROOT = HERE.parent.parent
BUILD = ROOT / "models" / "build"
RERANK_DEPTH = 50


def session(path: Path, threads: int = 2):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def tokenizer(model_dir: Path):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(128)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


def encode(tok, texts) -> dict:
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    return {"input_ids": ids, "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}


def embed(sess, tok, texts: list[str], batch: int = 128) -> np.ndarray:
    out = []
    for i in range(0, len(texts), batch):
        feeds = encode(tok, texts[i:i + batch])
        hidden = sess.run(["last_hidden_state"], feeds)[0].astype(np.float64)
        m = feeds["attention_mask"][..., None].astype(np.float64)
        out.append((hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None))
    return normalise(np.concatenate(out))


def logits(sess, tok, pairs: list[tuple[str, str]], batch: int = 128) -> np.ndarray:
    out = []
    for i in range(0, len(pairs), batch):
        out.append(sess.run(["logits"], encode(tok, pairs[i:i + batch]))[0])
    return np.concatenate(out).astype(np.float64)


def project(x: np.ndarray, model_dir: Path, d: int) -> np.ndarray:
    mean = np.frombuffer((model_dir / "projection.mean.f32").read_bytes(), dtype="<f4").astype(np.float64)
    comps = np.frombuffer((model_dir / "projection.components.f32").read_bytes(), dtype="<f4").reshape(384, -1).astype(np.float64)
    return normalise((x - mean) @ comps[:, :d])


def paired_latency_ms(models: dict[str, tuple], texts: list[str], rounds: int = 400) -> dict[str, float]:
    """Batch-1 p50 latency of several encoders measured interleaved on the same inputs, so a busy shared CPU slows
    them alike instead of whichever happened to run during a burst."""
    times: dict[str, list[float]] = {m: [] for m in models}
    for i in range(rounds):
        for model_id, (sess, tok) in models.items():
            feeds = encode(tok, [texts[i % len(texts)]])
            t = time.perf_counter()
            sess.run(None, feeds)
            times[model_id].append((time.perf_counter() - t) * 1000)
    return {m: float(np.median(v)) for m, v in times.items()}


def evaluate_biencoder(model_id: str, info: dict, pairs, rs) -> tuple[dict, np.ndarray, np.ndarray]:
    model_dir = BUILD / model_id
    sess, tok = session(model_dir / "encoder-int8.onnx"), tokenizer(model_dir)
    ea, eb = embed(sess, tok, pairs.a), embed(sess, tok, pairs.b)
    result = {"pairs_cosine": pair_metrics((ea * eb).sum(1), pairs.label)}
    q, c = embed(sess, tok, rs.queries), embed(sess, tok, rs.corpus)
    result["retrieval_384"] = retrieval_metrics(q, c, rs)
    for d in (256, 128):
        result[f"retrieval_pca_{d}"] = retrieval_metrics(project(q, model_dir, d), project(c, model_dir, d), rs)
        result[f"retrieval_prefix_{d}"] = retrieval_metrics(normalise(q[:, :d]), normalise(c[:, :d]), rs)
    return result, q, c


def evaluate_reranker(model_id: str, info: dict, pairs, rs, q: np.ndarray, c: np.ndarray) -> dict:
    model_dir = BUILD / model_id
    sess, tok = session(model_dir / info.get("file", "reranker-int8.onnx")), tokenizer(model_dir)
    lg = logits(sess, tok, list(zip(pairs.a, pairs.b)))
    result = {"pairs_cross": pair_metrics(lg, pairs.label)}
    cal = info.get("calibration")
    if cal:
        p = 1 / (1 + np.exp(-(cal["a"] * lg + cal["b"])))
        result["calibrated_brier"] = float(((p - pairs.label) ** 2).mean())
        result["calibrated_accuracy_at_0.5"] = float(((p >= 0.5) == (pairs.label == 1)).mean())
    # Rerank the bi-encoder's top RERANK_DEPTH for every retrieval query.
    scores = q @ c.T
    top = np.argsort(-scores, axis=1)[:, :RERANK_DEPTH]
    reranked = np.full_like(scores, -1e9)
    for i in range(len(rs.queries)):
        lg_q = logits(sess, tok, [(rs.queries[i], rs.corpus[j]) for j in top[i]])
        reranked[i, top[i]] = lg_q
    ndcg, mrr = ndcg_mrr(reranked, rs.grades)
    by_kind = {}
    for kind in sorted(set(rs.kinds)):
        m = np.array([k == kind for k in rs.kinds])
        by_kind[kind] = {"ndcg@10": float(ndcg[m].mean()), "mrr": float(mrr[m].mean())}
    result["retrieval_reranked_top50"] = {"ndcg@10": float(ndcg.mean()), "mrr": float(mrr.mean()), "by_kind": by_kind}
    batch = list(zip(rs.queries[:32], rs.corpus[:32]))
    feeds = encode(tok, batch)
    sess.run(None, feeds)
    t = time.perf_counter()
    n = 0
    while time.perf_counter() - t < 3.0:
        sess.run(None, feeds)
        n += len(batch)
    result["pairs_per_second_batch32"] = n / (time.perf_counter() - t)
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path, default=HERE / "eval" / "results.json")
    args = ap.parse_args()
    lock = json.loads((BUILD / "manifest.lock.json").read_text())
    pairs, rs = load_pairs(), load_retrieval()
    results: dict = {"models": {}}
    embeddings = {}
    for model_id, info in lock["models"].items():
        if info["role"] == "biencoder":
            print(f"[eval] {model_id} ...", flush=True)
            results["models"][model_id], q, c = evaluate_biencoder(model_id, info, pairs, rs)
            embeddings[model_id] = (q, c)
    bis = [m for m, i in lock["models"].items() if i["role"] == "biencoder"]
    latency = paired_latency_ms({m: (session(BUILD / m / "encoder-int8.onnx"), tokenizer(BUILD / m)) for m in bis}, rs.queries)
    for m, ms in latency.items():
        results["models"][m]["latency_batch1_p50_ms"] = ms
    serve = lock["serve"]
    tuned_bi = serve.get("biencoder")
    for model_id, info in lock["models"].items():
        if info["role"] == "reranker":
            print(f"[eval] {model_id} ...", flush=True)
            q, c = embeddings[tuned_bi]
            results["models"][model_id] = evaluate_reranker(model_id, info, pairs, rs, q, c)
            results["models"][model_id]["first_stage"] = tuned_bi
    results["held_out"] = {"pairs": int(len(pairs.label)), "same": int(pairs.label.sum()), "queries": len(rs.queries),
                           "corpus": len(rs.corpus)}
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print_table(results, lock)


def print_table(results: dict, lock: dict) -> None:
    bis = [m for m, i in lock["models"].items() if i["role"] == "biencoder"]
    rrs = [m for m, i in lock["models"].items() if i["role"] == "reranker"]
    h = results["held_out"]
    print(f"\nheld-out: {h['pairs']} pairs ({h['same']} same dish), {h['queries']} queries over {h['corpus']} real menu items")
    print(f"{'metric':42s}" + "".join(f"{m:>22s}" for m in bis + rrs))

    def row(name, get):
        cells = []
        for m in bis + rrs:
            try:
                v = get(results["models"][m])
                cells.append(f"{v:22.4f}" if isinstance(v, float) else f"{v:>22}")
            except KeyError:
                cells.append(f"{'-':>22}")
        print(f"{name:42s}" + "".join(cells))

    row("pair AUC, cosine", lambda r: r["pairs_cosine"]["auc"])
    row("pair accuracy, cosine (2-fold threshold)", lambda r: r["pairs_cosine"]["accuracy"])
    row("pair AUC, cross-encoder", lambda r: r["pairs_cross"]["auc"])
    row("pair accuracy, cross-encoder", lambda r: r["pairs_cross"]["accuracy"])
    for d in ("384",):
        row(f"retrieval nDCG@10 @{d}", lambda r: r[f"retrieval_{d}"]["ndcg@10"])
        row(f"retrieval MRR @{d}", lambda r: r[f"retrieval_{d}"]["mrr"])
    for d in (256, 128):
        for mode in ("pca", "prefix"):
            row(f"retrieval nDCG@10 @{d} ({mode})", lambda r, d=d, mode=mode: r[f"retrieval_{mode}_{d}"]["ndcg@10"])
            row(f"retrieval MRR @{d} ({mode})", lambda r, d=d, mode=mode: r[f"retrieval_{mode}_{d}"]["mrr"])
    row("retrieval nDCG@10, top-50 reranked", lambda r: r["retrieval_reranked_top50"]["ndcg@10"])
    row("retrieval MRR, top-50 reranked", lambda r: r["retrieval_reranked_top50"]["mrr"])
    row("int8 latency batch 1 p50 (ms)", lambda r: r["latency_batch1_p50_ms"])
    row("cross-encoder pairs/s (batch 32)", lambda r: r["pairs_per_second_batch32"])
    kinds = sorted(next(iter(results["models"].values()))["retrieval_384"]["by_kind"])
    print("\nnDCG@10 by query kind (384)" + "".join(f"{m:>22s}" for m in bis) + "".join(f"{m + ' rerank':>30s}" for m in rrs))
    for k in kinds:
        cells = "".join(f"{results['models'][m]['retrieval_384']['by_kind'][k]['ndcg@10']:22.4f}" for m in bis)
        cells += "".join(f"{results['models'][m]['retrieval_reranked_top50']['by_kind'][k]['ndcg@10']:30.4f}" for m in rrs)
        n = results["models"][bis[0]]["retrieval_384"]["by_kind"][k]["queries"]
        print(f"{k + f' ({n})':27s}" + cells)


if __name__ == "__main__":
    main()
