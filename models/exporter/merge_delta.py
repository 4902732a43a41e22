"""Merges a committed low-rank delta (models/deltas/<id>/) into base weights, with numpy only.

A delta folder holds
  config.json         {"format": "menu-lora-delta/1", "kind", "base", "base_model_sha256", "rank", "alpha", "scaling", ...}
  delta.safetensors   fp16 tensors:
                        <module>.lora_A [rank, in] and <module>.lora_B [out, rank]  ->  <module>.weight += scaling * B @ A
                        full.<name>                                                 ->  <name> is replaced (or added),
                                                                                        e.g. the cross-encoder's pooler and classifier
  metrics.json        what the training run measured (not read here)

Module paths are BERT's (`encoder.layer.3.attention.self.query`), the same names the exporter reads, with or without
a `bert.` prefix on the base weights.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

FORMAT = "menu-lora-delta/1"


def read_delta_config(delta_dir: Path) -> dict:
    config = json.loads((Path(delta_dir) / "config.json").read_text())
    if config.get("format") != FORMAT:
        raise ValueError(f"{delta_dir}: unsupported delta format {config.get('format')!r} (expected {FORMAT})")
    return config


def merge_delta(weights: dict[str, np.ndarray], delta_dir: Path, base_model_file: Path | None = None) -> dict[str, np.ndarray]:
    """Returns a new weight dict: base + scaling * B @ A for every adapted module, full tensors replaced or added.

    When base_model_file is given its sha256 must match the one the delta was trained on."""
    from safetensors.numpy import load_file

    delta_dir = Path(delta_dir)
    config = read_delta_config(delta_dir)
    if base_model_file is not None and config.get("base_model_sha256"):
        got = hashlib.sha256(Path(base_model_file).read_bytes()).hexdigest()
        if got != config["base_model_sha256"]:
            raise ValueError(f"{delta_dir}: trained on base {config['base_model_sha256']}, given {got}")
    scaling = float(config["scaling"])
    tensors = load_file(str(delta_dir / "delta.safetensors"))
    prefix = "bert." if any(k.startswith("bert.") for k in weights) else ""
    merged = dict(weights)

    modules = sorted({k[: -len(".lora_A")] for k in tensors if k.endswith(".lora_A")})
    for module in modules:
        a = tensors[f"{module}.lora_A"].astype(np.float32)
        b = tensors.get(f"{module}.lora_B")
        if b is None:
            raise ValueError(f"{delta_dir}: {module}.lora_A has no lora_B")
        key = f"{prefix}{module}.weight"
        if key not in merged:
            raise ValueError(f"{delta_dir}: adapted module {module} is not in the base weights")
        w = merged[key].astype(np.float32)
        update = scaling * (b.astype(np.float32) @ a)
        if update.shape != w.shape:
            raise ValueError(f"{delta_dir}: {module} update {update.shape} does not fit weight {w.shape}")
        merged[key] = w + update
    stray = [k for k in tensors if k.endswith(".lora_B") and k[: -len(".lora_B")] not in modules]
    if stray:
        raise ValueError(f"{delta_dir}: lora_B without lora_A: {stray}")

    for key, value in tensors.items():
        if not key.startswith("full."):
            continue
        name = key[len("full."):]
        target = f"{prefix}{name}" if f"{prefix}{name}" in merged or name.startswith(("pooler.", "encoder.", "embeddings.")) else name
        if target in merged and merged[target].shape != value.shape:
            raise ValueError(f"{delta_dir}: {name} shape {value.shape} does not match base {merged[target].shape}")
        merged[target] = value.astype(np.float32)
    return merged


def select_layers(weights: dict[str, np.ndarray], layers: list[int]) -> dict[str, np.ndarray]:
    """A student's starting weights: everything outside the encoder layers, and the listed layers renumbered 0..k-1 in
    the given order (`encoder.layer.5.` becomes `encoder.layer.2.` for layers [0, 2, 5])."""
    prefix = "bert." if any(k.startswith("bert.") for k in weights) else ""
    layer_prefix = f"{prefix}encoder.layer."
    out = {k: v for k, v in weights.items() if not k.startswith(layer_prefix)}
    for new, old in enumerate(layers):
        src = f"{layer_prefix}{old}."
        found = False
        for k, v in weights.items():
            if k.startswith(src):
                out[f"{layer_prefix}{new}.{k[len(src):]}"] = v
                found = True
        if not found:
            raise ValueError(f"layer {old} is not in the weights")
    return out
