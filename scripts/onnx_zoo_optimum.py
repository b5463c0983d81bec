#!/usr/bin/env python3
"""The ONNX zoo's Hugging Face optimum family: run by scripts/onnx_zoo.py in .venv-optimum/.

    .venv-optimum/bin/python scripts/onnx_zoo_optimum.py --out build-models/zoo NAME [NAME ...]

optimum-onnx 0.1.0 pins transformers < 4.58 and .venv-oracle/ has transformers 5, so this runs in
its own venv (scripts/setup.sh --optimum). Tiny transformers models are made from configs written
here, with random weights (nothing from the hub), and exported by optimum's own exporter
(`onnx_export_from_model`) with the task optimum users pick; then the same files through onnxslim,
onnxsim and ONNX Runtime's transformer optimizer. Each export is done once per --out and kept in
OUT/optimum/FAMILY/, so that the variants of one family reuse it.

  opt_gpt2_past              text-generation-with-past: one decoder with past_key_values inputs
  opt_t5_encoder             text2text-generation-with-past: the encoder,
  opt_t5_decoder             the decoder without past,
  opt_t5_decoder_past        the decoder with past (its Slice `position_bias[:, :, -seq:, :]`),
  opt_t5_decoder_merged      the merged decoder (an If on `use_cache_branch`)
  opt_bert                   feature-extraction (an encoder)
  slim_* / sim_* / ortopt_*  onnxslim, onnxsim, ORT optimizer on the opt_ models they name
"""
import argparse
import os
import sys
import warnings

import onnx

FAMILIES = {"gpt2": "text-generation-with-past", "t5": "text2text-generation-with-past", "bert": "feature-extraction"}
# name -> (family, file optimum writes)
EXPORTS = {
    "opt_gpt2_past": ("gpt2", "model.onnx"),
    "opt_t5_encoder": ("t5", "encoder_model.onnx"),
    "opt_t5_decoder": ("t5", "decoder_model.onnx"),
    "opt_t5_decoder_past": ("t5", "decoder_with_past_model.onnx"),
    "opt_t5_decoder_merged": ("t5", "decoder_model_merged.onnx"),
    "opt_bert": ("bert", "model.onnx"),
}
# ORT optimizer's model_type per family (its fusions on the merged decoder leave an empty graph)
ORT_TYPES = {"gpt2": "gpt2", "t5": "t5", "bert": "bert"}


def _model(family):
    import torch
    import transformers

    torch.manual_seed(0)
    if family == "gpt2":
        cfg = transformers.GPT2Config(n_embd=32, n_layer=2, n_head=4, vocab_size=256, n_positions=128)
        return transformers.GPT2LMHeadModel(cfg).eval()
    if family == "t5":
        cfg = transformers.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                                    vocab_size=256, decoder_start_token_id=0)
        return transformers.T5ForConditionalGeneration(cfg).eval()
    cfg = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                                  vocab_size=256, max_position_embeddings=128)
    return transformers.BertModel(cfg).eval()


def exported(out, name):
    family, fname = EXPORTS[name]
    folder = os.path.join(out, "optimum", family)
    path = os.path.join(folder, fname)
    if not os.path.exists(path):
        from optimum.exporters.onnx import onnx_export_from_model

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            onnx_export_from_model(_model(family), folder, task=FAMILIES[family], do_validation=False)
    return path


def build(name, out):
    path = os.path.join(out, name + ".onnx")
    if name in EXPORTS:
        m = onnx.load(exported(out, name))
    else:
        tool, source = name.split("_", 1)
        src = exported(out, "opt_" + source)
        if tool == "slim":
            import onnxslim

            m = onnxslim.slim(onnx.load(src))
        elif tool == "sim":
            import onnxsim

            m, ok = onnxsim.simplify(onnx.load(src))
            assert ok, "onnxsim's check failed"
        else:
            from onnxruntime.transformers.optimizer import optimize_model

            family = EXPORTS["opt_" + source][0]
            m = optimize_model(src, model_type=ORT_TYPES[family], num_heads=4, hidden_size=32, opt_level=1).model
    _strip(m.graph)  # as the zoo's other models: fakeprop and the peers start from the same facts
    onnx.save(m, path)


def _strip(graph):
    del graph.value_info[:]
    for node in graph.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                _strip(a.g)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="+")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    for n in a.names:
        build(n, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
