"""Distils a smaller bi-encoder (the student) from a tuned 6-layer one (the teacher): some of the teacher's layers,
kept in their order and renumbered, trained to reproduce the teacher's sentence vectors, then fine-tuned with the
teacher's own contrastive batches beside the distillation. Writes a small delta to models/cache/deltas/<id>/ that the
build applies on top of the teacher's merged weights; `npm run train -- <id> --record` commits it.

    models/train/.venv/bin/python models/train/distill.py --teacher menu-minilm-l6-v4 --layers 0,2,5 --out-id ID
    ... --recipe models/deltas/<id>/config.json [--resume]

What the student learns from: the texts the server feeds the encoder, cleaned as the server cleans them
(models/train/clean_texts.mjs runs src/core/text/clean.ts): the knowledge base's training dishes (names, aliases,
noisy renderings), real menu names from ../shared/data's development sources (never a restaurant eval/split.json
holds out; a real name or query an eval/dev set holds is dropped too, so the development metrics stay a fair
comparison), search phrasings and generated queries. The teacher's vectors for them are computed once and cached.

Loss: 1 - cosine between student and teacher at 384 and at the Matryoshka prefixes 256 and 128 (as the teacher was
trained), and at the PCA projections to 256 and 128 the server serves (the teacher's projection, which the student's
build reuses, so 256/128 stay in the teacher's space). Phase two adds the teacher's InfoNCE loss on its knowledge-base
batches (in-batch + hard negatives, false negatives masked, over the prefixes), weighted by --contrastive-weight.

Trainable: a LoRA update (rank --rank) of every projection matrix, every bias and every LayerNorm of the kept layers,
and the embedding LayerNorm; the word, position and type embeddings stay the teacher's. With --qat the projections
see int8 during training as ONNX Runtime computes them when served (activations per tensor, asymmetric uint8, the
range of each run; weights per output channel, symmetric int8), straight-through gradients, so the student is trained
for the graph it will be served as.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from menu_data import ROOT, knowledge_hash, render_noisy  # noqa: E402
from training_pairs import TrainingData  # noqa: E402
from concepts import all_train_phrasings  # noqa: E402
from train import BASE_DIR, MATRYOSHKA_DIMS, evaluate_biencoder, file_sha256, length_groups, log, mean_pool, seed_everything, warmup_then_linear_decay  # noqa: E402

# Where ../shared/data is (MENU_SHARED_DATA, as the eval reads it, for checkouts that are not beside it).
SHARED = Path(os.environ.get("MENU_SHARED_DATA", str(ROOT.parent / "shared" / "data")))
# Sources whose texts are dropped when an eval/dev set holds them: the real menus and queries the development sets
# were drawn from. The knowledge base's own names stay (the teacher trained on them, and search reads them).
EXCLUDE_DEV_FROM = ("swiggy_menu_dumps", "swiggy_blr_menus", "zomato_roorkee_menus", "swiggy_menus_more", "mcdonalds_us_menu",
                    "nutritionix_us_chain_items", "zomato_blr_dishliked_subset", "dish_search_queries", "archanas_kitchen_subset",
                    "indian_food_101", "bigbasket", "flipkart_products", "medicine_details_1mg")
CACHE = ROOT / "models" / "cache" / "distill"
PCA_DIMS = (256, 128)
LINEAR_MODULES = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                  "intermediate.dense", "output.dense")
CODE_FILES = ("distill.py", "train.py", "training_pairs.py", "menu_data.py", "concepts.py", "clean_texts.mjs")


def code_hash() -> str:
    h = hashlib.sha256()
    for name in CODE_FILES:
        h.update((HERE / name).read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------------------------------------------------------
# The corpus

def _csv_column(path: Path, column: str, keep=lambda row: True) -> list[str]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf8") as f:
        return [r[column].strip() for r in csv.DictReader(f) if r.get(column) and keep(r)]


def real_menu_names() -> dict[str, list[str]]:
    """Item names of ../shared/data's menu sources, by source. swiggy_menus_more keeps only the restaurants eval/split.json
    does not hold out."""
    split = json.loads((ROOT / "eval" / "split.json").read_text())
    held = set(split["heldout_restaurants"])
    out = {
        "swiggy_menu_dumps": _csv_column(SHARED / "swiggy_menu_dumps" / "swiggy_menu_items.csv", "item_name"),
        "swiggy_blr_menus": _csv_column(SHARED / "swiggy_blr_menus" / "swiggy_all_menus_bangalore.csv", "Dish Name"),
        "zomato_roorkee_menus": _csv_column(SHARED / "zomato_roorkee_menus" / "zomato_roorkee_menu_items.csv", "item_name"),
        "swiggy_menus_more": _csv_column(SHARED / "swiggy_menus_more" / "swiggy_menus_more.csv", "item_name",
                                         lambda r: r.get("restaurant") not in held),
        "mcdonalds_us_menu": _csv_column(SHARED / "mcdonalds_us_menu" / "mcdonalds_menu_items.csv", "item"),
        "nutritionix_us_chain_items": _csv_column(SHARED / "nutritionix_us_chain_items" / "MenuItem.csv", "Original food Item"),
    }
    liked = _csv_column(SHARED / "zomato_blr_dishliked_subset" / "zomato_blr_subset.csv", "dish_liked")
    out["zomato_blr_dishliked_subset"] = [d.strip() for cell in liked for d in cell.split(",") if d.strip()]
    # Dish names of recipe collections, and (sampled) the grocery, retail and medicine listings that reach the encoder
    # through non-food detection.
    recipes = _csv_column(SHARED / "archanas_kitchen_subset" / "IndianFoodDataset.csv", "TranslatedRecipeName")
    out["archanas_kitchen_subset"] = [r.removesuffix(" Recipe").strip() for r in recipes]
    out["indian_food_101"] = _csv_column(SHARED / "indian_food_101" / "indian_food.csv", "name")
    rng = random.Random(5)
    for source, path, column, n in (("bigbasket", "bigbasket/BigBasket_Products.csv", "product", 3000),
                                    ("flipkart_products", "flipkart_products/flipkart_product_names.csv", "product_name", 2000),
                                    ("medicine_details_1mg", "medicine_details_1mg/Medicine_Details.csv", "Medicine Name", 1000)):
        rows = sorted(set(_csv_column(SHARED / path, column)))
        out[source] = rng.sample(rows, min(n, len(rows)))
    return out


def eval_dev_texts() -> set[str]:
    """Every string of the eval/dev sets (TSV cells, JSON string values): excluded from the corpus."""
    out: set[str] = set()

    def walk(v):
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    for path in sorted((ROOT / "eval" / "dev").iterdir()):
        text = path.read_text(encoding="utf8")
        if path.suffix == ".tsv":
            for line in text.splitlines():
                out.update(c for c in line.split("\t") if c)
        elif path.suffix == ".json":
            walk(json.loads(text))
        elif path.suffix == ".jsonl":
            for line in text.splitlines():
                if line.strip():
                    walk(json.loads(line))
    return out


def clean_texts(texts: list[str]) -> list[str]:
    """The server's cleaning, through Node (models/train/clean_texts.mjs)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(texts))
        subprocess.run(["node", str(HERE / "clean_texts.mjs"), str(src), str(dst)], check=True)
        return json.loads(dst.read_text())


def build_corpus(seed: int) -> tuple[list[str], dict]:
    """The distillation texts, cleaned, deduplicated, without the real names and queries an eval/dev set holds; and
    counts by source."""
    rng = random.Random(seed)
    data = TrainingData(seed)
    raw: dict[str, list[str]] = {}
    raw["knowledge_base"] = [f for d in data.train for f in d.forms]
    raw["knowledge_base_noisy"] = [render_noisy(rng.choice(d.forms), data.lex, rng, 1.0) for d in data.train for _ in range(4)]
    raw.update(real_menu_names())
    raw["search_phrasings"] = all_train_phrasings()
    queries = SHARED / "dish_search_queries" / "llm_queries.json"
    raw["dish_search_queries"] = [q["query"] for q in json.loads(queries.read_text())] if queries.exists() else []
    generated = []
    for _ in range(1500):
        for ex in data.bi_batch(32, 0.5):
            generated += [ex.anchor, ex.positive] + ([ex.negative] if ex.negative else [])
    raw["generated_pairs"] = generated
    order = [(source, t) for source, texts in raw.items() for t in texts]
    cleaned = clean_texts([t for _, t in order])
    banned = {t.lower() for t in clean_texts(sorted(eval_dev_texts()))}
    seen: set[str] = set()
    corpus: list[str] = []
    counts: dict[str, int] = {}
    dropped = 0
    for (source, _), text in zip(order, cleaned):
        key = text.lower()
        if not text or key in seen:
            continue
        if source in EXCLUDE_DEV_FROM and key in banned:
            dropped += 1
            continue
        seen.add(key)
        corpus.append(text)
        counts[source] = counts.get(source, 0) + 1
    counts["dropped_as_eval_dev"] = dropped
    return corpus, counts


# ------------------------------------------------------------------------------------------------------------
# Teacher and student

from exporter.merge_delta import select_layers  # noqa: E402  (the build's own layer selection)


def merged_weights(delta_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file
    from exporter.merge_delta import merge_delta
    base = load_file(str(BASE_DIR / "model.safetensors"))
    return merge_delta(base, delta_dir, base_model_file=BASE_DIR / "model.safetensors")


def bert_from(weights: dict[str, np.ndarray], num_layers: int):
    from transformers import BertConfig, BertModel
    cfg = BertConfig.from_pretrained(str(BASE_DIR))
    cfg.num_hidden_layers = num_layers
    model = BertModel(cfg, add_pooling_layer=False)
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items() if not k.startswith("pooler.") and "position_ids" not in k}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if "position_ids" not in m]
    if missing or unexpected:
        raise SystemExit(f"weights did not load: missing {missing[:5]} unexpected {unexpected[:5]}")
    return model


def fake_quant_activation(x: torch.Tensor) -> torch.Tensor:
    """ONNX Runtime's DynamicQuantizeLinear: uint8, the tensor's own range widened to hold 0; straight-through."""
    lo = torch.clamp(x.detach().min(), max=0.0)
    hi = torch.clamp(x.detach().max(), min=0.0)
    scale = torch.clamp((hi - lo) / 255.0, min=1e-8)
    zero = torch.round(-lo / scale)
    q = (torch.clamp(torch.round(x / scale) + zero, 0, 255) - zero) * scale
    return x + (q - x).detach()


def fake_quant_weight(w: torch.Tensor) -> torch.Tensor:
    """Per output channel, symmetric int8 (quantize_dynamic's per-channel QInt8 weights); straight-through."""
    scale = torch.clamp(w.detach().abs().amax(dim=1, keepdim=True) / 127.0, min=1e-12)
    q = torch.clamp(torch.round(w / scale), -127, 127) * scale
    return w + (q - w).detach()


class LoRALinear(nn.Module):
    """weight (frozen, the teacher's) + scaling * B @ A, trainable bias; optionally seen through int8."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, qat: bool):
        super().__init__()
        self.weight = nn.Parameter(base.weight.detach().clone(), requires_grad=False)
        self.bias = nn.Parameter(base.bias.detach().clone())
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features) / np.sqrt(base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scaling = alpha / rank
        self.qat = qat

    def effective_weight(self) -> torch.Tensor:
        return self.weight + self.scaling * (self.lora_B @ self.lora_A)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.effective_weight()
        if self.qat:
            x, w = fake_quant_activation(x), fake_quant_weight(w)
        return F.linear(x, w, self.bias)


def make_student(teacher_weights: dict[str, np.ndarray], layers: list[int], rank: int, alpha: float, qat: bool):
    model = bert_from(select_layers(teacher_weights, layers), len(layers))
    for p in model.parameters():
        p.requires_grad = False
    for i, layer in enumerate(model.encoder.layer):
        for path in LINEAR_MODULES:
            parent = layer
            *parents, leaf = path.split(".")
            for name in parents:
                parent = getattr(parent, name)
            setattr(parent, leaf, LoRALinear(getattr(parent, leaf), rank, alpha, qat))
        for name, p in layer.named_parameters():
            if "LayerNorm" in name:
                p.requires_grad = True
    for p in model.embeddings.LayerNorm.parameters():
        p.requires_grad = True
    return model


def student_delta(model, layers: list[int]) -> dict[str, torch.Tensor]:
    """LoRA matrices and full tensors keyed as merge_delta reads them, in the student's own layer numbering."""
    out: dict[str, torch.Tensor] = {}
    for i, layer in enumerate(model.encoder.layer):
        for path in LINEAR_MODULES:
            mod = layer
            for name in path.split("."):
                mod = getattr(mod, name)
            key = f"encoder.layer.{i}.{path}"
            out[f"{key}.lora_A"] = mod.lora_A.detach().float()
            out[f"{key}.lora_B"] = mod.lora_B.detach().float()
            out[f"full.{key}.bias"] = mod.bias.detach().float()
        for name, p in layer.named_parameters():
            if "LayerNorm" in name:
                out[f"full.encoder.layer.{i}.{name}"] = p.detach().float()
    for name, p in model.embeddings.LayerNorm.named_parameters():
        out[f"full.embeddings.LayerNorm.{name}"] = p.detach().float()
    return out


def embed_batch(model, tok, texts: list[str], group: int = 64) -> torch.Tensor:
    """Mean-pooled, L2-normalised vectors, in the given order; forward passes over length-sorted groups."""
    enc = tok(texts, truncation=True, max_length=64)
    groups = length_groups([len(x) for x in enc["input_ids"]], group)
    parts = []
    for g in groups:
        batch = tok.pad({k: [v[i] for i in g] for k, v in enc.items()}, return_tensors="pt")
        parts.append(F.normalize(mean_pool(model(**batch).last_hidden_state, batch["attention_mask"]), dim=-1))
    return torch.cat(parts)[torch.argsort(torch.tensor([i for g in groups for i in g]))]


@torch.no_grad()
def teacher_vectors(model, tok, texts: list[str]) -> np.ndarray:
    model.eval()
    out = []
    for i in range(0, len(texts), 512):
        out.append(embed_batch(model, tok, texts[i:i + 512]).numpy())
        if (i // 512) % 20 == 0:
            log(f"teacher vectors {i + len(out[-1])}/{len(texts)}")
    return np.concatenate(out).astype(np.float32)


def knowledge_texts() -> list[str]:
    """The texts the build learns the PCA projection from (models/build_models.py knowledge_texts)."""
    texts: list[str] = []
    for f in sorted((ROOT / "knowledge" / "dishes").glob("*.tsv")):
        rows = [l.strip() for l in f.read_text(encoding="utf8").splitlines() if l.strip() and not l.startswith("#")]
        for row in rows[1:]:
            cells = row.split("\t")
            if len(cells) < 7:
                continue
            texts.append(cells[0])
            texts.extend(a for a in cells[6].split("|") if a and a != "-" and a.isascii())
    return sorted(set(texts))


# ------------------------------------------------------------------------------------------------------------
# Training

def distill_loss(s: torch.Tensor, t: torch.Tensor, pca: torch.Tensor) -> torch.Tensor:
    losses = [1 - F.cosine_similarity(s[:, :d], t[:, :d]).mean() for d in MATRYOSHKA_DIMS]
    ps, pt = s @ pca, t @ pca
    losses += [1 - F.cosine_similarity(ps[:, :d], pt[:, :d]).mean() for d in PCA_DIMS]
    return torch.stack(losses).mean()


def contrastive_loss(model, tok, batch, scale: float) -> torch.Tensor:
    anchors = [b.anchor for b in batch]
    candidates = [b.positive for b in batch] + [b.negative for b in batch if b.negative is not None]
    cand_dish = [b.positive_dish for b in batch] + [b.negative_dish for b in batch if b.negative is not None]
    emb = embed_batch(model, tok, anchors + candidates, 32)
    ea, ec = emb[:len(anchors)], emb[len(anchors):]
    mask = torch.zeros(len(anchors), len(candidates), dtype=torch.bool)
    for i, b in enumerate(batch):
        for j, dish in enumerate(cand_dish):
            if j != i and dish in b.relevant:
                mask[i, j] = True
    target = torch.arange(len(anchors))
    loss = torch.zeros(())
    for d in MATRYOSHKA_DIMS:
        logits = F.normalize(ea[:, :d], dim=-1) @ F.normalize(ec[:, :d], dim=-1).T * scale
        loss = loss + F.cross_entropy(logits.masked_fill(mask, -1e4), target)
    return loss / len(MATRYOSHKA_DIMS)


RECIPE_KEYS = ("teacher", "layers", "rank", "alpha", "steps", "contrastive_steps", "contrastive_weight", "batch", "lr",
               "seed", "qat", "scale")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--recipe", help="a committed student's config.json: its settings replace the options below")
    ap.add_argument("--teacher", default="menu-minilm-l6-v4")
    ap.add_argument("--layers", default="0,2,5", help="teacher layers the student keeps, in order")
    ap.add_argument("--rank", type=int, default=64)
    ap.add_argument("--alpha", type=float, default=64.0)
    ap.add_argument("--steps", type=int, default=3000, help="distillation steps, the contrastive phase included")
    ap.add_argument("--contrastive-steps", type=int, default=600, help="the last steps also take the teacher's InfoNCE loss")
    ap.add_argument("--contrastive-weight", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--scale", type=float, default=20.0)
    ap.add_argument("--qat", action="store_true", help="train through int8 as served (see the module docstring)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out-id", required=False)
    ap.add_argument("--out-dir")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--no-eval", action="store_true")
    args = ap.parse_args()
    if args.recipe:
        recipe = json.loads(Path(args.recipe).read_text())
        if recipe.get("kind") != "student":
            raise SystemExit(f"{args.recipe} is a {recipe.get('kind')} recipe, not a student")
        t = recipe["training"]
        args.teacher, args.layers = recipe["teacher"], ",".join(str(x) for x in recipe["layers"])
        args.rank, args.alpha = recipe["rank"], recipe["alpha"]
        for k in ("steps", "contrastive_steps", "contrastive_weight", "batch", "lr", "seed", "qat", "scale"):
            setattr(args, k, t[k])
        args.out_id = args.out_id or Path(args.recipe).parent.name
    if not args.out_id:
        raise SystemExit("--out-id or --recipe is required")
    layers = [int(x) for x in args.layers.split(",")]
    args.layers = layers
    out_dir = Path(args.out_dir) if args.out_dir else ROOT / "models" / "cache" / "deltas" / args.out_id
    torch.set_num_threads(args.threads)
    seed_everything(args.seed)
    knowledge_sha256 = knowledge_hash()

    manifest = json.loads((ROOT / "models" / "manifest.json").read_text())
    tspec = manifest["models"].get(args.teacher)
    if not tspec or not tspec.get("delta"):
        raise SystemExit(f"teacher {args.teacher} is not a tuned model of models/manifest.json")
    teacher_delta = ROOT / tspec["delta"]
    teacher_weights = merged_weights(teacher_delta)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(BASE_DIR))

    # The corpus and the teacher's vectors, cached by what they depend on.
    corpus_key = hashlib.sha256(f"{args.seed}|{knowledge_sha256}|{code_hash()}".encode()).hexdigest()[:16]
    teacher_key = hashlib.sha256(f"{corpus_key}|{file_sha256(teacher_delta / 'delta.safetensors')}".encode()).hexdigest()[:16]
    CACHE.mkdir(parents=True, exist_ok=True)
    corpus_path, targets_path = CACHE / f"corpus-{corpus_key}.json", CACHE / f"targets-{args.teacher}-{teacher_key}.npy"
    if corpus_path.exists():
        saved = json.loads(corpus_path.read_text())
        corpus, counts = saved["texts"], saved["counts"]
    else:
        corpus, counts = build_corpus(args.seed)
        corpus_path.write_text(json.dumps({"texts": corpus, "counts": counts}))
    log(f"corpus: {len(corpus)} cleaned texts ({json.dumps(counts)})")
    teacher = bert_from(teacher_weights, len([k for k in teacher_weights if k.endswith('attention.self.query.weight')]))
    if targets_path.exists():
        targets = np.load(targets_path)
    else:
        t0 = time.time()
        targets = teacher_vectors(teacher, tok, corpus)
        np.save(targets_path, targets)
        log(f"teacher vectors for {len(corpus)} texts in {time.time() - t0:.0f}s")
    kb = knowledge_texts()
    with torch.no_grad():
        kb_vecs = teacher_vectors(teacher, tok, kb).astype(np.float64)
    _, _, vt = np.linalg.svd(kb_vecs, full_matrices=False)
    pca = torch.from_numpy(np.ascontiguousarray(vt.T[:, :max(PCA_DIMS)]).astype(np.float32))
    teacher_eval = None if args.no_eval else evaluate_biencoder(teacher, tok)
    del teacher

    student = make_student(teacher_weights, layers, args.rank, args.alpha, args.qat)
    params = [p for p in student.parameters() if p.requires_grad]
    log(f"student: teacher layers {layers}, {sum(p.numel() for p in params)} trainable parameters, qat={args.qat}")
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    sched = warmup_then_linear_decay(opt, args.steps)
    data = TrainingData(args.seed)
    rng = np.random.default_rng(args.seed)
    recipe_text = json.dumps({k: getattr(args, k) for k in RECIPE_KEYS}, sort_keys=True)
    ckpt = ROOT / "models" / "cache" / "train" / args.out_id / "checkpoint.pt"
    start = 0
    if args.resume:
        state = torch.load(ckpt, weights_only=False)
        if state["recipe"] != recipe_text:
            raise SystemExit(f"--resume: {ckpt} was made with another recipe:\n  {state['recipe']}\nnot\n  {recipe_text}")
        student.load_state_dict(state["weights"], strict=False)
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        rng.bit_generator.state = state["numpy_rng"]
        data.rng.setstate(state["data_rng"])
        torch.set_rng_state(state["torch_rng"])
        start = state["step"]
        log(f"resumed {ckpt} after step {start}")
    targets_t = torch.from_numpy(targets)
    t0 = time.time()
    for step in range(start, args.steps):
        student.train()
        idx = rng.choice(len(corpus), size=args.batch, replace=False)
        s = embed_batch(student, tok, [corpus[i] for i in idx])
        loss = distill_loss(s, targets_t[idx], pca)
        con = None
        if step >= args.steps - args.contrastive_steps:
            con = contrastive_loss(student, tok, data.bi_batch(32, 0.25), args.scale)
            loss = loss + args.contrastive_weight * con
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        done = step + 1
        if done % args.checkpoint_every == 0 or done == args.steps:
            ckpt.parent.mkdir(parents=True, exist_ok=True)
            tmp = ckpt.with_suffix(".tmp")
            torch.save({"recipe": recipe_text, "step": done, "weights": {n: p.detach().clone() for n, p in student.named_parameters() if p.requires_grad},
                        "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "numpy_rng": rng.bit_generator.state,
                        "data_rng": data.rng.getstate(), "torch_rng": torch.get_rng_state()}, tmp)
            os.replace(tmp, ckpt)
        if step % 20 == 0 or done == args.steps:
            log(f"student step {done}/{args.steps} loss {loss.item():.5f}{f' (contrastive {con.item():.3f})' if con is not None else ''} "
                f"({(time.time() - t0) / (done - start):.2f} s/step)")
    train_seconds = time.time() - t0

    metrics: dict = {"train_seconds": round(train_seconds, 1), "corpus": counts}
    student.eval()
    with torch.no_grad():
        chosen = np.random.default_rng(7).choice(len(corpus), size=min(4000, len(corpus)), replace=False)
        probe = [corpus[i] for i in chosen]
        sv = embed_batch(student, tok, probe).numpy()
        tv = targets[chosen]
        cos = (sv * tv).sum(1)
        metrics["cosine_to_teacher"] = {"texts": len(probe), "mean": float(cos.mean()), "p01": float(np.quantile(cos, 0.01)), "min": float(cos.min())}
    if not args.no_eval:
        metrics["student"] = evaluate_biencoder(student, tok)
        metrics["teacher"] = teacher_eval
    log(f"student vs teacher: {json.dumps(metrics)}")

    from safetensors.torch import save_file
    out_dir.mkdir(parents=True, exist_ok=True)
    tensors = student_delta(student, layers)
    save_file({k: v.half().contiguous() for k, v in sorted(tensors.items())}, str(out_dir / "delta.safetensors"))
    delta_sha = file_sha256(out_dir / "delta.safetensors")
    config = {
        "format": "menu-lora-delta/1",
        "kind": "student",
        "base": "minilm",
        "base_upstream": "sentence-transformers/all-MiniLM-L6-v2",
        "base_model_sha256": file_sha256(BASE_DIR / "model.safetensors"),
        "teacher": args.teacher,
        "teacher_delta_sha256": file_sha256(teacher_delta / "delta.safetensors"),
        "layers": layers,
        "rank": args.rank,
        "alpha": args.alpha,
        "scaling": args.alpha / args.rank,
        "target_modules": list(LINEAR_MODULES),
        "training": {"steps": args.steps, "contrastive_steps": args.contrastive_steps, "contrastive_weight": args.contrastive_weight,
                     "batch": args.batch, "lr": args.lr, "seed": args.seed, "qat": args.qat, "scale": args.scale,
                     "loss": "1 - cosine to the teacher at 384, prefixes 256/128 and its PCA 256/128; + InfoNCE (teacher's batches) in the last contrastive_steps",
                     "torch": torch.__version__, "threads": args.threads},
        "knowledge_sha256": knowledge_sha256,
        "training_code_sha256": code_hash(),
        "delta_sha256": delta_sha,
    }
    (out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out_dir / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    size = (out_dir / "delta.safetensors").stat().st_size
    log(f"wrote {out_dir}: delta.safetensors {size / 2 ** 20:.2f} MiB, {len(tensors)} tensors")
    if size > 8 * 2 ** 20:
        raise SystemExit(f"delta is {size} bytes, over the 8 MiB budget")


if __name__ == "__main__":
    main()
