"""The part of README.md here that the goldens determine: the model table and the counts.

scripts/memory_oracle.py writes it after every regeneration; test_memory_goldens.py checks that the
README holds what the goldens give. Needs no torch.
"""
import json
import pathlib

BEGIN = "<!-- written by scripts/memory_oracle.py from the goldens (readme_table.py): do not edit -->"
END = "<!-- end of the written part -->"

# What each model is; everything else in its row comes from its golden and graph.
DESCRIPTIONS = {
    "bert": "BertModel, sdpa, 2 layers, hidden 32",
    "bert_sdpa": "bert, aten.scaled_dot_product_attention kept, bool mask",
    "convnext_atto": "timm",
    "distilbert": "sdpa, 2 layers, dim 32",
    "gpt2": "GPT2LMHeadModel, sdpa, 2 layers, 32",
    "gpt2_train": "eager attention",
    "gpt2_sdpa_train": "SDPA attention",
    "llama": "LlamaForCausalLM, sdpa, GQA 2/1 heads",
    "llama_sdpa": "llama, aten.scaled_dot_product_attention kept, GQA",
    "llama_train": "eager attention",
    "llama_sdpa_train": "SDPA attention",
    "mobilenet_v3_small": "torchvision",
    "qwen2": "Qwen2ForCausalLM, sdpa",
    "resnet18": "torchvision, full width",
    "resnet18_thin": "resnet18, channels / 8",
    "resnet18_train": "cross-entropy step",
    "t5": "T5ForConditionalGeneration, enc-dec",
    "unet": "two-level UNet: conv/BN/ReLU, max-pool, transposed conv, skip cat",
    "vit_tiny": "timm vit_tiny_patch16_224, img 32, depth 2, dim 64, dynamic_img_size",
    "whisper": "WhisperForConditionalGeneration, sdpa, 8 mel bins, 32 frames",
}


def render(folder):
    folder = pathlib.Path(folder)
    rows, kinds, onnx = [], {"inference": 0, "train": 0}, 0
    tracker_equal_graphs, tracker_equal_sizes, train_sizes = 0, 0, 0
    for path in sorted(folder.glob("*.golden.json")):
        golden = json.loads(path.read_text())
        name = path.name[: -len(".golden.json")]
        nodes = len(json.loads((folder / golden["graph"]).read_text())["nodes"])
        sizes = "; ".join(", ".join("x".join(map(str, s["inputs"][p])) for p in golden["user_inputs"])
                          for s in golden["sizes"])
        equal = [s["memtracker_peak_bytes"] == s["peak_bytes"] for s in golden["sizes"]]
        kinds[golden["kind"]] += 1
        onnx += "onnx" in golden
        if golden["kind"] == "inference":
            tracker_equal_graphs += all(equal)
        else:
            train_sizes += len(equal)
            tracker_equal_sizes += sum(equal)
        rows.append("| %s (%s) | %s | %d | %s | %s | %s |" % (
            name, DESCRIPTIONS.get(name, "?"), golden["kind"], nodes, golden["decompositions"], sizes,
            golden.get("onnx", "")))
    lines = [BEGIN,
             "%d graphs: %d inference graphs and %d training joint graphs, 3 sizes each; %d with an ONNX "
             "export. MemTracker's peak equals `peak_bytes` at every size on %d of the %d inference graphs, "
             "and at %d of the %d joint-graph sizes (see MemTracker below)."
             % (kinds["inference"] + kinds["train"], kinds["inference"], kinds["train"], onnx,
                tracker_equal_graphs, kinds["inference"], tracker_equal_sizes, train_sizes),
             "",
             "| model | kind | JSON nodes | decompositions | sizes (user inputs) | ONNX |",
             "|---|---|---|---|---|---|"] + rows + [END]
    return "\n".join(lines)


def written_part(readme_text):
    start, end = readme_text.find(BEGIN), readme_text.find(END)
    return readme_text[start:end + len(END)] if start >= 0 and end > start else None


def write(folder):
    readme = pathlib.Path(folder) / "README.md"
    text = readme.read_text()
    old = written_part(text)
    if old is None:
        raise SystemExit("%s: no written part (%s ... %s)" % (readme, BEGIN, END))
    readme.write_text(text.replace(old, render(folder)))
