"""Weights in, graph out: builds an ONNX BERT encoder from a dict of named numpy weights.

The graph is written with the `onnx` package's helpers (no torch), so the same function turns the base
all-MiniLM-L6-v2 safetensors and any fine-tuned (LoRA-merged) weights into the served model.

Inputs:  input_ids, attention_mask, token_type_ids  (int64, [batch, sequence], both axes dynamic)
Output:  last_hidden_state (float32, [batch, sequence, hidden]); with an EmbeddingHead also embedding_<d>
         (float32, [batch, d]): mean-pooled, L2-normalised, and projected to each served dimension.

`fused=True` writes the layers with ONNX Runtime's fused transformer kernels (com.microsoft MultiHeadAttention,
SkipLayerNormalization, BiasGelu); the default is plain ONNX ops. build_cross_encoder_graph reuses the same encoder
body and adds the pooler + classifier head on the [CLS] row: output `logits` (float32, [batch]).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
MS_DOMAIN = "com.microsoft"


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    vocab_size: int
    max_position: int
    type_vocab_size: int

    @staticmethod
    def from_hf(cfg: dict) -> "BertConfig":
        if cfg.get("model_type") != "bert" or cfg.get("hidden_act") != "gelu":
            raise ValueError(f"unsupported encoder config: model_type={cfg.get('model_type')} act={cfg.get('hidden_act')}")
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        return BertConfig(
            hidden_size=cfg["hidden_size"],
            num_layers=cfg["num_hidden_layers"],
            num_heads=cfg["num_attention_heads"],
            intermediate_size=cfg["intermediate_size"],
            layer_norm_eps=float(cfg["layer_norm_eps"]),
            vocab_size=cfg["vocab_size"],
            max_position=cfg["max_position_embeddings"],
            type_vocab_size=cfg["type_vocab_size"],
        )


def normalise_names(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Accepts both `bert.`-prefixed (BertForX) and bare (BertModel / sentence-transformers) names."""
    out = {}
    for name, value in weights.items():
        key = name[5:] if name.startswith("bert.") else name
        out[key] = np.asarray(value, dtype=np.float32)
    return out


class _GraphBuilder:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._n = 0

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"{stem}_{self._n}"

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, inputs: list[str], stem: str, **attrs) -> str:
        out = self.fresh(stem)
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def ms_op(self, op_type: str, inputs: list[str], stem: str, **attrs) -> str:
        """An ONNX Runtime contrib op (com.microsoft): the fused kernels ORT's CPU provider has for transformers."""
        out = self.fresh(stem)
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, domain=MS_DOMAIN, **attrs))
        return out

    def matmul(self, x: str, weight: np.ndarray, name: str) -> str:
        """x @ weight.T with no bias: the fused ops downstream add it."""
        w = self.const(f"{name}.weight_t", np.ascontiguousarray(weight.T))
        return self.op("MatMul", [x, w], f"{name}.mm")

    def linear(self, x: str, weight: np.ndarray, bias: np.ndarray, name: str) -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out]. Transposing here keeps the initializer a plain
        # MatMul weight, which is what dynamic int8 quantisation (per-channel over the output axis) expects.
        w = self.const(f"{name}.weight_t", np.ascontiguousarray(weight.T))
        b = self.const(f"{name}.bias", bias)
        return self.op("Add", [self.op("MatMul", [x, w], f"{name}.mm"), b], f"{name}.out")

    def layer_norm(self, x: str, gamma: np.ndarray, beta: np.ndarray, eps: float, name: str) -> str:
        g = self.const(f"{name}.gamma", gamma)
        b = self.const(f"{name}.beta", beta)
        return self.op("LayerNormalization", [x, g, b], f"{name}.ln", axis=-1, epsilon=eps)

    def gelu(self, x: str, name: str) -> str:
        # Exact erf GELU as in BERT: 0.5 * x * (1 + erf(x / sqrt 2)); ORT fuses this pattern into one Gelu kernel.
        inv_sqrt2 = self.const(f"{name}.inv_sqrt2", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))
        one = self.const(f"{name}.one", np.array(1.0, dtype=np.float32))
        half = self.const(f"{name}.half", np.array(0.5, dtype=np.float32))
        erf = self.op("Erf", [self.op("Mul", [x, inv_sqrt2], f"{name}.scaled")], f"{name}.erf")
        return self.op("Mul", [self.op("Mul", [x, half], f"{name}.half_x"), self.op("Add", [erf, one], f"{name}.erf1")], f"{name}.gelu")


def _embeddings(g: _GraphBuilder, w: dict[str, np.ndarray], cfg: BertConfig) -> str:
    """Word + position + token type embeddings, then LayerNorm: the [batch, sequence, hidden] input of layer 0."""
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"], "shape"), g.const("idx1", np.array(1, dtype=np.int64))], "seq_len", axis=0)
    positions = g.op("Range", [g.const("zero_i64", np.array(0, dtype=np.int64)), seq_len, g.const("one_i64", np.array(1, dtype=np.int64))], "positions")
    word = g.op("Gather", [g.const("emb.word", w["embeddings.word_embeddings.weight"]), "input_ids"], "word_emb", axis=0)
    pos = g.op("Gather", [g.const("emb.position", w["embeddings.position_embeddings.weight"]), positions], "pos_emb", axis=0)
    typ = g.op("Gather", [g.const("emb.type", w["embeddings.token_type_embeddings.weight"]), "token_type_ids"], "type_emb", axis=0)
    x = g.op("Add", [g.op("Add", [word, pos], "wp"), typ], "emb_sum")
    x = g.layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], cfg.layer_norm_eps, "emb")
    return x


def _encoder_body(g: _GraphBuilder, w: dict[str, np.ndarray], cfg: BertConfig) -> str:
    """Embeddings + transformer layers; returns the name of the [batch, sequence, hidden] output."""
    head_dim = cfg.hidden_size // cfg.num_heads

    x = _embeddings(g, w, cfg)

    # Additive attention mask: 0 for tokens, -10000 for padding, shaped [batch, 1, 1, seq].
    mask_f = g.op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inv = g.op("Sub", [g.const("one_f", np.array(1.0, dtype=np.float32)), mask_f], "mask_inv")
    bias = g.op("Mul", [inv, g.const("neg_big", np.array(-10000.0, dtype=np.float32))], "mask_bias")
    bias = g.op("Unsqueeze", [bias, g.const("axes12", np.array([1, 2], dtype=np.int64))], "mask_bias4")

    split_shape = g.const("split_heads", np.array([0, 0, cfg.num_heads, head_dim], dtype=np.int64))
    merge_shape = g.const("merge_heads", np.array([0, 0, cfg.hidden_size], dtype=np.int64))
    scale = g.const("attn_scale", np.array(1.0 / np.sqrt(head_dim), dtype=np.float32))

    for i in range(cfg.num_layers):
        p = f"encoder.layer.{i}"
        q = g.linear(x, w[f"{p}.attention.self.query.weight"], w[f"{p}.attention.self.query.bias"], f"l{i}.q")
        k = g.linear(x, w[f"{p}.attention.self.key.weight"], w[f"{p}.attention.self.key.bias"], f"l{i}.k")
        v = g.linear(x, w[f"{p}.attention.self.value.weight"], w[f"{p}.attention.self.value.bias"], f"l{i}.v")
        qh = g.op("Transpose", [g.op("Reshape", [q, split_shape], f"l{i}.qr")], f"l{i}.qh", perm=[0, 2, 1, 3])
        kh = g.op("Transpose", [g.op("Reshape", [k, split_shape], f"l{i}.kr")], f"l{i}.kh", perm=[0, 2, 3, 1])
        vh = g.op("Transpose", [g.op("Reshape", [v, split_shape], f"l{i}.vr")], f"l{i}.vh", perm=[0, 2, 1, 3])
        scores = g.op("Mul", [g.op("MatMul", [qh, kh], f"l{i}.qk"), scale], f"l{i}.scaled")
        probs = g.op("Softmax", [g.op("Add", [scores, bias], f"l{i}.masked")], f"l{i}.probs", axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, vh], f"l{i}.ctx")], f"l{i}.ctx_t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], f"l{i}.ctx_m")
        attn = g.linear(ctx, w[f"{p}.attention.output.dense.weight"], w[f"{p}.attention.output.dense.bias"], f"l{i}.ao")
        x = g.layer_norm(g.op("Add", [attn, x], f"l{i}.res1"), w[f"{p}.attention.output.LayerNorm.weight"],
                         w[f"{p}.attention.output.LayerNorm.bias"], cfg.layer_norm_eps, f"l{i}.ln1")
        h = g.gelu(g.linear(x, w[f"{p}.intermediate.dense.weight"], w[f"{p}.intermediate.dense.bias"], f"l{i}.ff1"), f"l{i}.act")
        h = g.linear(h, w[f"{p}.output.dense.weight"], w[f"{p}.output.dense.bias"], f"l{i}.ff2")
        x = g.layer_norm(g.op("Add", [h, x], f"l{i}.res2"), w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"],
                         cfg.layer_norm_eps, f"l{i}.ln2")
    return x


def _fused_encoder_body(g: _GraphBuilder, w: dict[str, np.ndarray], cfg: BertConfig) -> str:
    """The same network as _encoder_body written with ONNX Runtime's fused transformer kernels (com.microsoft):
    MultiHeadAttention (biases, masking, softmax and both attention products in one kernel), SkipLayerNormalization
    (residual + bias + LayerNorm in one pass) and BiasGelu (bias + exact erf GELU in one pass). Each projection stays a
    plain MatMul, which is what int8 quantisation (dynamic or QDQ) rewrites. ORT's own optimiser did not recognise the
    unfused pattern (profiled: Erf, Mul, Add, Transpose and Softmax kernels were about half of an int8 run)."""
    h = cfg.hidden_size
    x = _embeddings(g, w, cfg)
    # MultiHeadAttention's key padding mask: int32 [batch, sequence], 1 for tokens, 0 for padding.
    mask = g.op("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)
    for i in range(cfg.num_layers):
        p = f"encoder.layer.{i}"
        q = g.matmul(x, w[f"{p}.attention.self.query.weight"], f"l{i}.q")
        k = g.matmul(x, w[f"{p}.attention.self.key.weight"], f"l{i}.k")
        v = g.matmul(x, w[f"{p}.attention.self.value.weight"], f"l{i}.v")
        qkv_bias = g.const(f"l{i}.qkv.bias", np.concatenate([w[f"{p}.attention.self.{n}.bias"] for n in ("query", "key", "value")]))
        ctx = g.ms_op("MultiHeadAttention", [q, k, v, qkv_bias, mask], f"l{i}.mha", num_heads=cfg.num_heads)
        attn = g.matmul(ctx, w[f"{p}.attention.output.dense.weight"], f"l{i}.ao")
        x = g.ms_op("SkipLayerNormalization", [attn, x, g.const(f"l{i}.ln1.gamma", w[f"{p}.attention.output.LayerNorm.weight"]),
                                                g.const(f"l{i}.ln1.beta", w[f"{p}.attention.output.LayerNorm.bias"]),
                                                g.const(f"l{i}.ao.bias", w[f"{p}.attention.output.dense.bias"])],
                    f"l{i}.ln1", epsilon=cfg.layer_norm_eps)
        hidden = g.ms_op("BiasGelu", [g.matmul(x, w[f"{p}.intermediate.dense.weight"], f"l{i}.ff1"),
                                      g.const(f"l{i}.ff1.bias", w[f"{p}.intermediate.dense.bias"])], f"l{i}.act")
        out = g.matmul(hidden, w[f"{p}.output.dense.weight"], f"l{i}.ff2")
        x = g.ms_op("SkipLayerNormalization", [out, x, g.const(f"l{i}.ln2.gamma", w[f"{p}.output.LayerNorm.weight"]),
                                               g.const(f"l{i}.ln2.beta", w[f"{p}.output.LayerNorm.bias"]),
                                               g.const(f"l{i}.ff2.bias", w[f"{p}.output.dense.bias"])],
                    f"l{i}.ln2", epsilon=cfg.layer_norm_eps)
    return x


def _finish(g: _GraphBuilder, graph_name: str, outputs: list[onnx.ValueInfoProto]) -> onnx.ModelProto:
    dims = ["batch", "sequence"]
    # ONNX shape inference knows no contrib op: their float outputs are declared, so quantisation tools can tell that
    # the MatMuls reading them take float activations.
    typed = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in g.nodes if n.domain == MS_DOMAIN]
    graph = helper.make_graph(
        g.nodes,
        graph_name,
        inputs=[helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")],
        outputs=outputs,
        initializer=g.initializers,
        value_info=typed,
    )
    opsets = [helper.make_opsetid("", OPSET)]
    if any(n.domain == MS_DOMAIN for n in g.nodes):
        opsets.append(helper.make_opsetid(MS_DOMAIN, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="menu-intelligence-exporter")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


@dataclass(frozen=True)
class EmbeddingHead:
    """Sentence vectors computed inside the graph: mean over attended tokens, L2, and the smaller dimensions the server
    serves, each re-normalised: a PCA projection (x - mean) @ components[:, :d] ('pca'), or the first d dimensions
    ('prefix'). Done here rather than in JavaScript, the projection is one MLAS GEMM instead of ~50k scalar
    multiply-adds per vector (measured in the worker: ~95 ms of CPU per 1000 texts)."""
    mode: str                       # "pca" or "prefix"
    dimensions: tuple[int, ...]     # the served sizes below the hidden size, largest first
    mean: np.ndarray | None = None  # [hidden] (pca)
    components: np.ndarray | None = None  # [hidden, >= max(dimensions)] (pca)


HEAD_PREFIX = "head."


def _embedding_head(g: _GraphBuilder, x: str, cfg: BertConfig, head: EmbeddingHead) -> list[onnx.ValueInfoProto]:
    mask_f = g.op("Cast", ["attention_mask"], f"{HEAD_PREFIX}mask_f", to=TensorProto.FLOAT)
    mask3 = g.op("Unsqueeze", [mask_f, g.const(f"{HEAD_PREFIX}axis2", np.array([2], dtype=np.int64))], f"{HEAD_PREFIX}mask3")
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask3], f"{HEAD_PREFIX}masked"), g.const(f"{HEAD_PREFIX}axis1", np.array([1], dtype=np.int64))],
                  f"{HEAD_PREFIX}summed", keepdims=0)
    # The mean's 1/count cancels in the normalisation.
    full = g.op("LpNormalization", [summed], f"{HEAD_PREFIX}pooled", axis=1, p=2)
    outputs = {cfg.hidden_size: full}
    if head.mode == "pca":
        widest = max(head.dimensions)
        centred = full if not np.any(head.mean) else g.op("Sub", [full, g.const(f"{HEAD_PREFIX}mean", head.mean.astype(np.float32))], f"{HEAD_PREFIX}centred")
        projected = g.op("MatMul", [centred, g.const(f"{HEAD_PREFIX}components", np.ascontiguousarray(head.components[:, :widest]).astype(np.float32))],
                         f"{HEAD_PREFIX}project")
        source = projected
    else:
        source = full
    for d in head.dimensions:
        part = source if head.mode == "pca" and d == max(head.dimensions) else g.op(
            "Slice", [source, g.const(f"{HEAD_PREFIX}start{d}", np.array([0], dtype=np.int64)), g.const(f"{HEAD_PREFIX}end{d}", np.array([d], dtype=np.int64)),
                      g.const(f"{HEAD_PREFIX}axes{d}", np.array([1], dtype=np.int64))], f"{HEAD_PREFIX}slice{d}")
        outputs[d] = g.op("LpNormalization", [part], f"{HEAD_PREFIX}norm{d}", axis=1, p=2)
    infos = []
    for d, name in sorted(outputs.items(), reverse=True):
        g.nodes.append(helper.make_node("Identity", [name], [f"embedding_{d}"], name=f"{HEAD_PREFIX}out{d}"))
        infos.append(helper.make_tensor_value_info(f"embedding_{d}", TensorProto.FLOAT, ["batch", d]))
    return infos


def build_bert_graph(weights: dict[str, np.ndarray], cfg: BertConfig, graph_name: str = "menu_encoder", fused: bool = False,
                     head: EmbeddingHead | None = None) -> onnx.ModelProto:
    """Outputs last_hidden_state, and with a head embedding_<d> [batch, d] for the hidden size and each head dimension."""
    w = normalise_names(weights)
    g = _GraphBuilder()
    x = (_fused_encoder_body if fused else _encoder_body)(g, w, cfg)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", cfg.hidden_size])]
    if head is not None:
        outputs += _embedding_head(g, x, cfg, head)
    return _finish(g, graph_name, outputs)


def build_cross_encoder_graph(weights: dict[str, np.ndarray], cfg: BertConfig, graph_name: str = "menu_reranker", fused: bool = False) -> onnx.ModelProto:
    """BERT + pooler (tanh dense on the [CLS] row) + a one-logit classifier, as BertForSequenceClassification with
    num_labels=1.  Input is a pair encoded [CLS] a [SEP] b [SEP] with token types 0/1; output `logits` [batch]."""
    w = normalise_names(weights)
    for name in ("pooler.dense.weight", "pooler.dense.bias", "classifier.weight", "classifier.bias"):
        if name not in w:
            raise ValueError(f"cross-encoder weights lack {name}")
    if w["classifier.weight"].shape != (1, cfg.hidden_size):
        raise ValueError(f"classifier must have one output, got {w['classifier.weight'].shape}")
    g = _GraphBuilder()
    x = (_fused_encoder_body if fused else _encoder_body)(g, w, cfg)
    cls = g.op("Gather", [x, g.const("cls_index", np.array(0, dtype=np.int64))], "cls", axis=1)  # [batch, hidden]
    pooled = g.op("Tanh", [g.linear(cls, w["pooler.dense.weight"], w["pooler.dense.bias"], "pooler")], "pooled")
    logit = g.linear(pooled, w["classifier.weight"], w["classifier.bias"], "classifier")  # [batch, 1]
    g.nodes.append(helper.make_node("Squeeze", [logit, g.const("squeeze_axis", np.array([1], dtype=np.int64))], ["logits"], name="output"))
    return _finish(g, graph_name, [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch"])])


def reference_forward(weights: dict[str, np.ndarray], cfg: BertConfig, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
    """A plain numpy BERT forward pass (float64), the parity oracle for the exported graph."""
    from math import erf, sqrt  # noqa: F401  (scipy-free erf below)

    w = {k: v.astype(np.float64) for k, v in normalise_names(weights).items()}

    def ln(x, gname, bname):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + cfg.layer_norm_eps) * w[gname] + w[bname]

    def lin(x, prefix):
        return x @ w[f"{prefix}.weight"].T + w[f"{prefix}.bias"]

    erf_v = np.vectorize(__import__("math").erf)
    b, s = ids.shape
    hd = cfg.hidden_size // cfg.num_heads
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][np.arange(s)][None] + w["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias")
    bias = ((1.0 - mask.astype(np.float64)) * -10000.0)[:, None, None, :]
    for i in range(cfg.num_layers):
        p = f"encoder.layer.{i}"
        def heads(t):
            return t.reshape(b, s, cfg.num_heads, hd).transpose(0, 2, 1, 3)
        q, k, v = (heads(lin(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
        sc = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + bias
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        pr = sc / sc.sum(-1, keepdims=True)
        ctx = (pr @ v).transpose(0, 2, 1, 3).reshape(b, s, cfg.hidden_size)
        x = ln(lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm.weight", f"{p}.attention.output.LayerNorm.bias")
        h = lin(x, f"{p}.intermediate.dense")
        h = 0.5 * h * (1.0 + erf_v(h / np.sqrt(2.0)))
        x = ln(lin(h, f"{p}.output.dense") + x, f"{p}.output.LayerNorm.weight", f"{p}.output.LayerNorm.bias")
    return x


def reference_cross_encoder(weights: dict[str, np.ndarray], cfg: BertConfig, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
    """numpy (float64) logits of the cross-encoder: the parity oracle for build_cross_encoder_graph."""
    w = {k: v.astype(np.float64) for k, v in normalise_names(weights).items()}
    hidden = reference_forward(weights, cfg, ids, mask, types)
    pooled = np.tanh(hidden[:, 0] @ w["pooler.dense.weight"].T + w["pooler.dense.bias"])
    return (pooled @ w["classifier.weight"].T + w["classifier.bias"])[:, 0]
