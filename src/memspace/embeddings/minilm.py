"""A lean runtime for one sentence-transformers model: a BERT encoder with mean pooling.

all-MiniLM-L6-v2 is a 6-layer BERT whose sentence vector is the mean of its last hidden states
over the real (unpadded) tokens, L2-normalised. That is a few matrix products, so the runtime is
written here in plain torch, read from the model folder's own files: `tokenizer.json` (the
`tokenizers` package, Rust), `config.json` (shape of the network), `sentence_bert_config.json`
(window, lower-casing), `1_Pooling/config.json` (pooling) and `model.safetensors` (weights).

Why not sentence-transformers: importing it pulls transformers, scikit-learn and scipy (3 s of a
cold start beyond torch's own import, and their pages in every server's RSS) for what is, for this
model, the forward pass below. The integration test compares every vector with
sentence-transformers' on the same folder (tests/integration/test_local_embedder.py).

Importing this module imports torch: import it lazily.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from tokenizers import Encoding, Tokenizer, normalizers
from torch.nn import functional as nnf

# Padded tokens per forward pass. The activations grow with texts x tokens (the feed-forward
# layer's alone is 1,536 floats a token): 256 texts of 256 tokens in one pass raised the peak
# RSS by 1,630 MB, in passes of 8,192 tokens (32 such texts) by 280 MB. Short texts are not
# affected (256 facts of 30 tokens are one pass).
TOKENS_PER_PASS = 8192


def _json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True)
class Shape:
    """What config.json says about the encoder; anything this runtime does not implement is
    refused at load rather than computed wrongly."""

    hidden: int
    heads: int
    layers: int
    eps: float
    positions: int
    pad_id: int

    @classmethod
    def read(cls, config: dict[str, Any]) -> Shape:
        expected = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
        for key, value in expected.items():
            if config.get(key, value) != value:
                raise ValueError(f"config.json has {key}={config.get(key)!r}; this runtime implements "
                                 f"{value!r} only")
        if config["hidden_size"] % config["num_attention_heads"]:
            raise ValueError("config.json: hidden_size is not a multiple of num_attention_heads")
        return cls(hidden=config["hidden_size"], heads=config["num_attention_heads"],
                   layers=config["num_hidden_layers"], eps=float(config["layer_norm_eps"]),
                   positions=config["max_position_embeddings"], pad_id=config.get("pad_token_id", 0))


@dataclass(frozen=True)
class Layer:
    qkv: tuple[torch.Tensor, torch.Tensor]  # query, key and value stacked: one product, not three
    out: tuple[torch.Tensor, torch.Tensor]
    out_norm: tuple[torch.Tensor, torch.Tensor]
    up: tuple[torch.Tensor, torch.Tensor]
    down: tuple[torch.Tensor, torch.Tensor]
    down_norm: tuple[torch.Tensor, torch.Tensor]


class MiniLM:
    """Tokeniser, weights and forward pass of a BERT sentence encoder with mean pooling."""

    def __init__(self, folder: Path) -> None:
        self.shape = Shape.read(_json(folder / "config.json"))
        st_config = _json(folder / "sentence_bert_config.json")
        pooling = _json(folder / "1_Pooling" / "config.json")
        modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode_") and v)
        if modes != ["pooling_mode_mean_tokens"]:
            raise ValueError(f"1_Pooling/config.json asks for {modes}; this runtime implements mean "
                             "pooling only")
        self.dimensions: int = pooling.get("word_embedding_dimension", self.shape.hidden)
        # The window counts [CLS] and [SEP]; sentence-transformers caps it at the positions the
        # model has.
        self.max_tokens = min(st_config.get("max_seq_length") or self.shape.positions,
                              self.shape.positions)
        self.tokenizer = _tokenizer(folder / "tokenizer.json", self.max_tokens,
                                    lower=bool(st_config.get("do_lower_case")))
        self._load_weights(folder / "model.safetensors")

    def _load_weights(self, path: Path) -> None:
        with safe_open(str(path), framework="pt") as weights:
            def pair(prefix: str, a: str = "weight", b: str = "bias") -> tuple[torch.Tensor, torch.Tensor]:
                return weights.get_tensor(f"{prefix}.{a}"), weights.get_tensor(f"{prefix}.{b}")

            self.word = weights.get_tensor("embeddings.word_embeddings.weight")
            self.position = weights.get_tensor("embeddings.position_embeddings.weight")
            self.token_type = weights.get_tensor("embeddings.token_type_embeddings.weight")
            self.embed_norm = pair("embeddings.LayerNorm")
            self.layers: list[Layer] = []
            for n in range(self.shape.layers):
                at = f"encoder.layer.{n}"
                parts = [pair(f"{at}.attention.self.{name}") for name in ("query", "key", "value")]
                self.layers.append(Layer(
                    qkv=(torch.cat([w for w, _ in parts]), torch.cat([b for _, b in parts])),
                    out=pair(f"{at}.attention.output.dense"),
                    out_norm=pair(f"{at}.attention.output.LayerNorm"),
                    up=pair(f"{at}.intermediate.dense"),
                    down=pair(f"{at}.output.dense"),
                    down_norm=pair(f"{at}.output.LayerNorm")))
        # The pooler (a dense layer on [CLS]) is never read by mean pooling: not loaded.

    def encode(self, texts: Sequence[str], batch_size: int) -> list[list[float]]:
        """Unit vectors, one per text, in the order given.

        Texts go through the network longest first, sorted by token count (sentence-transformers
        sorts by characters, a proxy for the same thing): each forward pass pads its texts to the
        longest of them, so neighbours of similar length waste the least work on padding. A pass
        takes `batch_size` texts, or fewer when they are long (TOKENS_PER_PASS).
        """
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        vectors: list[list[float]] = [[] for _ in texts]
        start = 0
        with torch.inference_mode():
            while start < len(order):
                longest = len(encodings[order[start]].ids)
                chosen = order[start:start + max(1, min(batch_size, TOKENS_PER_PASS // longest))]
                batch = self._forward(*self._pad([encodings[i] for i in chosen])).tolist()
                for i, vector in zip(chosen, batch, strict=True):
                    vectors[i] = vector
                start += len(chosen)
        return vectors

    def _pad(self, encodings: list[Encoding]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        longest = max(len(e.ids) for e in encodings)
        pad = self.shape.pad_id
        ids = torch.tensor([e.ids + [pad] * (longest - len(e.ids)) for e in encodings])
        types = torch.tensor([e.type_ids + [0] * (longest - len(e.ids)) for e in encodings])
        lengths = torch.tensor([len(e.ids) for e in encodings])
        mask = torch.arange(longest).unsqueeze(0) < lengths.unsqueeze(1)
        return ids, types, mask

    def _forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length = ids.shape
        heads, eps, hidden = self.shape.heads, self.shape.eps, self.shape.hidden
        x = nnf.embedding(ids, self.word) + nnf.embedding(types, self.token_type) + self.position[:length]
        x = nnf.layer_norm(x, (hidden,), *self.embed_norm, eps=eps)
        keep = mask[:, None, None, :]  # every query may look at the real tokens, never at padding
        for layer in self.layers:
            q, k, v = (nnf.linear(x, *layer.qkv).view(batch, length, 3, heads, hidden // heads)
                       .permute(2, 0, 3, 1, 4))
            attended = nnf.scaled_dot_product_attention(q, k, v, attn_mask=keep)
            attended = attended.transpose(1, 2).reshape(batch, length, hidden)
            x = nnf.layer_norm(nnf.linear(attended, *layer.out) + x, (hidden,), *layer.out_norm, eps=eps)
            inner = nnf.gelu(nnf.linear(x, *layer.up))  # exact (erf) GELU, as hidden_act "gelu" means
            x = nnf.layer_norm(nnf.linear(inner, *layer.down) + x, (hidden,), *layer.down_norm, eps=eps)
        weights = mask.unsqueeze(-1).to(x.dtype)
        mean = (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
        return nnf.normalize(mean, p=2.0, dim=1)


def _tokenizer(path: Path, max_tokens: int, lower: bool) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(path))
    # tokenizer.json carries the padding and window of its export (fixed 128 here); the window
    # is the model's, and padding is per batch (_pad), to the batch's longest text.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens, strategy="longest_first")
    if lower:  # sentence_bert_config's do_lower_case: lower-case before the tokenizer's own steps
        steps = [normalizers.Lowercase()]
        if tokenizer.normalizer is not None:
            steps.append(tokenizer.normalizer)
        tokenizer.normalizer = normalizers.Sequence(steps)
    return tokenizer
