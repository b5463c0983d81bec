#!/usr/bin/python3
"""Sweeps transformers' model types through torch.export and fakeprop, within a time budget.

Run in the oracle's environment (transformers pinned in scripts/sweep-requirements.txt):
    .venv-oracle/bin/python scripts/hf_sweep.py --fakeprop build/fakeprop --budget 3600 [--skip N] [--json OUT] [TYPE ...]

Every model_type of CONFIG_MAPPING_NAMES with a base model class in MODEL_MAPPING_NAMES, in name
order: its causal-LM class where MODEL_FOR_CAUSAL_LM_MAPPING_NAMES has one, else the base model, built
from its default config made tiny (the size attributes the config has, in it and its sub-configs:
layers 1-2, hidden 64, 4 heads, vocab 256, images 64x64), random weights, eval mode, use_cache
off (export cannot flatten a DynamicCache). Exported by torch.export (strict=False) with the model's
main input and, for encoder-decoders, decoder_input_ids: batch and sequence (height and width for
pixel_values, length for audio) Dim.AUTO, batch alone where that fails. Then as scripts/arch_sweep.py:
the CLI on the .pt2 and fakeprop.propagate in process, every node against torch's meta['val'] at
the hints, each model in a child process with --timeout, no model started after --budget seconds.
Nothing is downloaded (HF_HUB_OFFLINE; pretrained backbones off).
"""
import inspect
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import arch_sweep  # noqa: E402 - the comparison, the driver and the summary are arch_sweep's

# Size attributes made small where a config has them (never made larger).
_SMALL = dict(num_hidden_layers=2, num_layers=2, n_layer=2, encoder_layers=1, decoder_layers=1,
              num_decoder_layers=1, num_encoder_layers=1, text_layers=1, vision_layers=1,
              hidden_size=64, d_model=64, n_embd=64, embed_dim=64, dim=64, projection_dim=64,
              num_attention_heads=4, n_head=4, num_heads=4, encoder_attention_heads=4,
              decoder_attention_heads=4, num_key_value_heads=2, head_dim=16, d_kv=16, kv_channels=16,
              intermediate_size=128, d_ff=128, n_inner=128, ffn_dim=128, encoder_ffn_dim=128,
              decoder_ffn_dim=128, moe_intermediate_size=32, shared_expert_intermediate_size=32,
              num_experts=4, num_local_experts=4, n_routed_experts=4, num_experts_per_tok=2,
              vocab_size=256, image_size=64, max_source_positions=64, codebook_dim=64,
              # rotary and multi-head latent attention dims within the head dim of 16
              rotary_dim=16, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16, kv_lora_rank=32,
              q_lora_rank=32)
_TOKEN_IDS = ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id", "sep_token_id",
              "cls_token_id", "mask_token_id", "unk_token_id")


def model_types():
    """{model_type: model_type} for every type with a base model class, in name order."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    return {t: t for t in sorted(CONFIG_MAPPING_NAMES) if t in MODEL_MAPPING_NAMES}


def _small(d):
    """The config dict `d` with its sizes made small, sub-configs (dicts with a model_type) too."""
    orig, d = d, dict(d)
    staged = "depths" in d  # Swin-like: num_layers and hidden_size follow the stage lists
    for k, v in list(d.items()):
        if isinstance(v, dict) and "model_type" in v:
            d[k] = _small(v)
        elif k in _SMALL and type(v) is int and not (staged and k in ("num_layers", "hidden_size")):
            d[k] = min(v, _SMALL[k])
        elif k == "image_size" and isinstance(v, (list, tuple)) and len(v) == 2:
            d[k] = [min(v[0], 64), min(v[1], 64)]
        elif k == "depths" and isinstance(v, list):
            d[k] = [1] * len(v)
        elif k in ("num_heads", "num_attention_heads") and isinstance(v, list):
            d[k] = [min(h, 2) for h in v]
        elif k == "use_pretrained_backbone":
            d[k] = False
        elif k == "use_cache":
            d[k] = False
    layers = d.get("num_hidden_layers")
    if type(layers) is int and layers != orig.get("num_hidden_layers"):  # per-layer lists follow the layer count
        for k, v in d.items():
            if isinstance(v, list) and len(v) == orig["num_hidden_layers"]:
                d[k] = v[:layers]
    vocab = d.get("vocab_size")
    for i, k in enumerate(_TOKEN_IDS):
        if type(vocab) is int and type(d.get(k)) is int and d[k] >= vocab:
            d[k] = min(i, vocab - 1)
    return d


def _inputs(model, cfg):
    """(kwargs, dynamic-shape tries, their names) for the model's main input."""
    import torch
    from torch.export import Dim

    A = Dim.AUTO
    name = model.main_input_name
    sub = getattr(cfg, "vision_config", None) or getattr(cfg, "encoder", None) or cfg
    vocab = getattr(cfg, "vocab_size", None) or getattr(getattr(cfg, "text_config", None), "vocab_size", 256)
    if name == "input_ids":
        x, full, what = torch.randint(3, min(vocab, 256), (2, 16)), {0: A, 1: A}, "batch+seq"
    elif name == "pixel_values":
        size = getattr(sub, "image_size", None) or getattr(cfg, "image_size", 64)
        h, w = (size, size) if isinstance(size, int) else size
        c = getattr(sub, "num_channels", None) or getattr(cfg, "num_channels", 3)
        x, full, what = torch.randn(2, c, h, w), {0: A, 2: A, 3: A}, "batch+hw"
    elif name == "input_values" and isinstance(getattr(cfg, "num_mel_bins", None), int):  # a spectrogram
        x, full, what = torch.randn(2, getattr(cfg, "max_length", 128), cfg.num_mel_bins), {0: A}, "batch"
    elif name == "input_values":
        x, full, what = torch.randn(2, 4000), {0: A, 1: A}, "batch+length"
    elif name == "input_features":
        mels = next((getattr(cfg, k) for k in ("num_mel_bins", "input_feat_per_channel", "feature_size")
                     if isinstance(getattr(cfg, k, None), int)), 80)
        frames = 2 * cfg.max_source_positions if isinstance(getattr(cfg, "max_source_positions", None), int) else 128
        x, full, what = torch.randn(2, mels, frames), {0: A, 2: A}, "batch+length"
    else:
        raise ValueError("main input %r: the sweep builds no such input" % name)
    kwargs, shapes, batch = {name: x}, {name: full}, {name: {0: A}}
    # CLIP-like text-image pairs need both; models that splice image tokens into the text are run on text alone
    params = inspect.signature(model.forward).parameters
    if name == "pixel_values" and "input_ids" in params and params["input_ids"].default is inspect.Parameter.empty:
        kwargs["input_ids"] = torch.randint(3, min(vocab, 256), (2, 16))
        shapes["input_ids"], batch["input_ids"] = {0: A, 1: A}, {0: A}
        what += "+seq"
    if name == "input_ids" and "pixel_values" in params and getattr(cfg, "vision_config", None) is not None and not any(
            hasattr(cfg, k) for k in ("image_token_id", "image_token_index", "image_token")):
        size = getattr(cfg.vision_config, "image_size", 64)
        h, w = (size, size) if isinstance(size, int) else size
        kwargs["pixel_values"] = torch.randn(2, getattr(cfg.vision_config, "num_channels", 3), h, w)
        shapes["pixel_values"], batch["pixel_values"] = {0: A}, {0: A}
        what = "batch+seq (image static)"
    if getattr(cfg, "is_encoder_decoder", False):
        kwargs["decoder_input_ids"] = torch.randint(3, min(vocab, 256), (2, 8))
        shapes["decoder_input_ids"], batch["decoder_input_ids"] = {0: A, 1: A}, {0: A}
    return kwargs, [shapes, batch], [what, "batch"]


def run_one(model_type, fakeprop_bin, workdir):
    """The sweep's result for one model type, as a dict (runs in the child)."""
    import torch
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, MODEL_MAPPING_NAMES

    out = {"model": model_type}
    t0 = time.perf_counter()
    try:
        cls_name = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(model_type) or MODEL_MAPPING_NAMES[model_type]
        cls_name = cls_name[0] if isinstance(cls_name, (list, tuple)) else cls_name
        out["class"] = cls_name
        config_cls = CONFIG_MAPPING[model_type]
        small = _small(config_cls().to_dict())
        small.pop("transformers_version", None)
        cfg = config_cls(**small)
        model = getattr(transformers, cls_name)(cfg).eval()
        kwargs, tries, names = _inputs(model, cfg)
        with torch.no_grad():  # a tiny config the model cannot run is the sweep's failure, not export's
            model(**kwargs)
    except Exception as e:  # noqa: BLE001 - one failed build: the model is given up, with the reason
        out.update(status="build_failed", cause=arch_sweep._cause(e))
        return out
    ep = arch_sweep.export_dynamic(model, (), kwargs, tries, names, out)
    out["export_s"] = round(time.perf_counter() - t0, 1)
    return arch_sweep.compare(ep, os.path.join(workdir, model_type + ".pt2"), fakeprop_bin, out) if ep else out


if __name__ == "__main__":
    sys.exit(arch_sweep.main(targets=model_types, one=run_one, script=__file__, what="model types"))
