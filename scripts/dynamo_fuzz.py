#!/usr/bin/env python3
"""A differential fuzzer: random small programs under torch.compile against fakeprop on their ATen graphs.

Run in the oracle venv, from the repository root, with the fakeprop CLI and package built:

    .venv-oracle/bin/python scripts/dynamo_fuzz.py --seed 1 --programs 200

Each program is a function of one to three tensor inputs whose body is a few independent ops
(`o0 = x.flatten(1)`, `o1 = torch.cat([x, y], 0)`, ...) drawn from OPS (views, reshape with -1,
flatten/unflatten, permute/transpose, reductions, broadcasting elementwise, cat/stack/split/chunk/
unbind, pad and slicing with symbolic amounts, conv/pool/interpolate, matmul/bmm/linear/SDPA,
masking, nonzero/masked_select/item/tolist, factories from sizes, index_select/gather/scatter,
repeat/expand, cumsum/sort/topk, norms, torch._check), with random shapes (0, 1 and 2 among
them), dtypes and dynamism: dynamic=True, automatic dynamic over a workload of 2-8 calls,
mark_dynamic with and without min/max, maybe_mark_dynamic, mark_unbacked (min/max, strict,
hint_override), TORCH_COMPILE_{DYNAMIC,UNBACKED,STATIC}_SOURCES (with :N and regular
expressions). Every op is run eagerly on every call's inputs first, so that only valid programs
are kept. `--population chained` draws programs whose ops also read earlier ops' results (o0,
o1[0]), from OPS and CHAIN_OPS (size arithmetic, shape branches, attention and MLP blocks,
in-place updates of a clone), returning every result or only the ones no later op reads.

A program is a scenario of scripts/dynamo_scenarios.py (its runner executes it: torch.compile with
TORCH_LOGS in a subprocess, the golden and the ATen graph written as there), and fakeprop replays
it with testdata/dynamo/test_dynamo_scenarios.py's own code (`run_fakeprop`, `aspects`,
`compare`). A disagreeing aspect is classified: `text` (the same decision printed differently:
Eq/Ne and ==/!= argument order, a trivial replacement's direction, fakeprop's deliberate listing of
a size specialized to a constant and its leaving out `0 <=` of an unbacked size, two error texts),
`outside-graph` (torch's extra guards, asserts or recompile reasons come from no user frame:
AOTAutograd's output-metadata checks, which are no op of the ATen graph), else `wrong`. A fakeprop
exit other than 0 or 1 is a crash. The first program of each (class, aspect of its first
disagreement, kind of dynamism) is minimized, up to --minimize of them (ops, then calls, then
dynamic dims and marks removed while a disagreement of that class and aspect persists), and written
to --out as NAME.golden.json + NAME.graph.json, the seed and the command in its `fuzz` field;
testdata/dynamo_fuzz/test_dynamo_fuzz.py replays them without torch. The programs are deterministic
for a seed (program i's draws are seeded by "SEED:i", so --only i runs the same program).

Prints one line per program, then `programs N, aspects A/T agree, wrong W, outside-graph O, text X,
crashes C` and a Markdown table of the disagreement classes (docs/recompiles.md's).

`--keep DIR --rescore` runs no torch: it scores the goldens an earlier run with the same --seed and
--keep DIR left there with the fakeprop in FAKEPROP_BIN, by the same comparison and classes, and
minimizes nothing, so a fix's effect on a whole run costs seconds, not the run again.
`--keep DIR --resume` continues a run that stopped: a program with a directory in DIR is scored
from it as --rescore would, the others run torch.
"""
import argparse
import copy
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "testdata", "dynamo"))
import dynamo_log  # noqa: E402
import dynamo_scenarios  # noqa: E402
import test_dynamo_scenarios as replay  # noqa: E402

UNBACKED = dynamo_scenarios.UNBACKED

# ------------------------------------------------------------------------------------------------
# The op table. Each entry: (name, min rank, max rank, flags, make) where make(c) returns the code of
# one op as an expression over c.x (and c.y, the second input, where one is), or a list of lines whose
# last is an expression. c.s is the first call's shape of c.x, c.r its rank, c.d() a random dim,
# c.R the random generator. Flags: "y" needs a second input; "u" needs capture_scalar_outputs and
# capture_dynamic_output_shape_ops.


class Ctx:
    def __init__(self, R, x, s, y=None, ys=None):
        self.R, self.x, self.s, self.r, self.y, self.ys = R, x, s, len(s), y, ys

    def d(self):
        return self.R.randrange(self.r) - (self.r if self.R.random() < 0.3 else 0)

    def perm(self):
        p = list(range(self.r))
        self.R.shuffle(p)
        return ", ".join(map(str, p))

    def two(self):
        a, b = self.R.sample(range(self.r), 2)
        return a, b

    def size_le(self, d, k):
        return min(k, max(1, self.s[d]))


def _ones_rest(c, k):
    return ", ".join([str(k)] + ["1"] * (c.r - 1))


OPS = [
    # elementwise, unary
    ("relu", 0, 4, "", lambda c: "%s.relu()" % c.x),
    ("sigmoid", 0, 4, "", lambda c: "%s.sigmoid()" % c.x),
    ("tanh", 0, 4, "", lambda c: "%s.tanh()" % c.x),
    ("exp", 0, 4, "", lambda c: "%s.exp()" % c.x),
    ("abs", 0, 4, "", lambda c: "%s.abs()" % c.x),
    ("neg", 0, 4, "", lambda c: "-%s" % c.x),
    ("sin", 0, 4, "", lambda c: "%s.sin()" % c.x),
    ("sqrt_abs", 0, 4, "", lambda c: "%s.abs().sqrt()" % c.x),
    ("log1p_abs", 0, 4, "", lambda c: "%s.abs().log1p()" % c.x),
    ("gelu", 0, 4, "", lambda c: "F.gelu(%s)" % c.x),
    ("silu", 0, 4, "", lambda c: "F.silu(%s)" % c.x),
    ("leaky_relu", 0, 4, "", lambda c: "F.leaky_relu(%s, 0.1)" % c.x),
    ("hardtanh", 0, 4, "", lambda c: "F.hardtanh(%s)" % c.x),
    ("softmax", 1, 4, "", lambda c: "%s.softmax(%d)" % (c.x, c.d())),
    ("log_softmax", 1, 4, "", lambda c: "%s.log_softmax(%d)" % (c.x, c.d())),
    ("clamp", 0, 4, "", lambda c: "%s.clamp(-0.5, 0.5)" % c.x),
    ("floor", 0, 4, "", lambda c: "%s.floor()" % c.x),
    ("round", 0, 4, "", lambda c: "%s.round()" % c.x),
    ("sign", 0, 4, "", lambda c: "%s.sign()" % c.x),
    ("square", 0, 4, "", lambda c: "%s.square()" % c.x),
    ("reciprocal", 0, 4, "", lambda c: "(%s.abs() + 1).reciprocal()" % c.x),
    ("erf", 0, 4, "", lambda c: "%s.erf()" % c.x),
    ("to_float64", 0, 4, "", lambda c: "%s.to(torch.float64) * 2" % c.x),
    ("to_half", 0, 4, "", lambda c: "%s.half() + 1" % c.x),
    ("to_int", 0, 4, "", lambda c: "%s.int() + 1" % c.x),
    ("gt_bool", 0, 4, "", lambda c: "%s > 0" % c.x),
    ("logical_not", 0, 4, "", lambda c: "(%s > 0).logical_not()" % c.x),
    ("scalar_arith", 0, 4, "", lambda c: "%s * 2 + 1" % c.x),
    ("pow2", 0, 4, "", lambda c: "%s ** 2" % c.x),
    ("dropout_eval", 0, 4, "", lambda c: "F.dropout(%s, 0.5, training=False)" % c.x),
    ("nan_to_num", 0, 4, "", lambda c: "%s.nan_to_num()" % c.x),
    # elementwise, broadcasting
    ("sub_mean_keepdim", 1, 4, "", lambda c: "%s - %s.mean(%d, keepdim=True)" % (c.x, c.x, c.d())),
    ("sub_amax_last", 1, 4, "", lambda c: "%s - %s.amax(-1, keepdim=True)" % (c.x, c.x)),
    ("add_first_col", 1, 4, "", lambda c: "%s + %s[..., :1]" % (c.x, c.x)),
    ("mul_first_row", 1, 4, "", lambda c: "%s * %s[:1]" % (c.x, c.x)),
    ("div_norm", 1, 4, "", lambda c: "%s / (%s.norm(dim=-1, keepdim=True) + 1)" % (c.x, c.x)),
    ("outer_add", 1, 1, "", lambda c: "%s.unsqueeze(0) + %s.unsqueeze(1)" % (c.x, c.x)),
    ("add_y", 0, 4, "y", lambda c: "%s + %s" % (c.x, c.y)),
    ("mul_y", 0, 4, "y", lambda c: "%s * %s" % (c.x, c.y)),
    ("where_y", 0, 4, "y", lambda c: "torch.where(%s > 0, %s, %s)" % (c.x, c.x, c.y)),
    ("maximum_y", 0, 4, "y", lambda c: "torch.maximum(%s, %s)" % (c.x, c.y)),
    ("eq_y", 0, 4, "y", lambda c: "%s == %s" % (c.x, c.y)),
    ("where_scalar", 0, 4, "", lambda c: "torch.where(%s > 0, %s, 0.0)" % (c.x, c.x)),
    ("add_arange_last", 1, 4, "", lambda c: "%s + torch.arange(%s.shape[-1])" % (c.x, c.x)),
    # reductions
    ("sum_dim", 1, 4, "", lambda c: "%s.sum(%d)" % (c.x, c.d())),
    ("sum_all", 0, 4, "", lambda c: "%s.sum()" % c.x),
    ("sum_keepdim", 1, 4, "", lambda c: "%s.sum(%d, keepdim=True)" % (c.x, c.d())),
    ("mean_dim", 1, 4, "", lambda c: "%s.mean(%d)" % (c.x, c.d())),
    ("mean_two", 2, 4, "", lambda c: "%s.mean((0, -1))" % c.x),
    ("amax_dim", 1, 4, "", lambda c: "%s.amax(%d)" % (c.x, c.d())),
    ("amin_dim", 1, 4, "", lambda c: "%s.amin(%d)" % (c.x, c.d())),
    ("max_dim", 1, 4, "", lambda c: "%s.max(%d).values" % (c.x, c.d())),
    ("argmax_dim", 1, 4, "", lambda c: "%s.argmax(%d)" % (c.x, c.d())),
    ("argmin_all", 0, 4, "", lambda c: "%s.argmin()" % c.x),
    ("prod_dim", 1, 4, "", lambda c: "%s.prod(%d)" % (c.x, c.d())),
    ("var_dim", 1, 4, "", lambda c: "%s.var(%d)" % (c.x, c.d())),
    ("std_all", 0, 4, "", lambda c: "%s.std()" % c.x),
    ("norm_dim", 1, 4, "", lambda c: "%s.norm(dim=%d)" % (c.x, c.d())),
    ("logsumexp", 1, 4, "", lambda c: "%s.logsumexp(%d)" % (c.x, c.d())),
    ("any_dim", 1, 4, "", lambda c: "(%s > 0).any(%d)" % (c.x, c.d())),
    ("all_dim", 1, 4, "", lambda c: "(%s > 0).all(%d)" % (c.x, c.d())),
    ("count_nonzero", 1, 4, "", lambda c: "%s.count_nonzero(%d)" % (c.x, c.d())),
    # views
    ("view_m1", 0, 4, "", lambda c: "%s.view(-1)" % c.x),
    ("reshape_m1", 0, 4, "", lambda c: "%s.reshape(-1)" % c.x),
    ("view_m1_last", 1, 4, "", lambda c: "%s.view(-1, %s.shape[-1])" % (c.x, c.x)),
    ("view_first_m1", 1, 4, "", lambda c: "%s.view(%s.shape[0], -1)" % (c.x, c.x)),
    ("reshape_m1_k", 0, 4, "", lambda c: "%s.reshape(-1, %d)" % (c.x, c.R.choice([2, 3, 4]))),
    ("reshape_k_m1", 0, 4, "", lambda c: "%s.reshape(%d, -1)" % (c.x, c.R.choice([1, 2, 3]))),
    ("view_m1_k_m", 0, 4, "", lambda c: "%s.view(-1, %d, %d)" % (c.x, c.R.choice([1, 2]), c.R.choice([2, 3]))),
    ("reshape_last_m1", 1, 4, "", lambda c: "%s.reshape(%s.shape[-1], -1)" % (c.x, c.x)),
    ("view_merge_two", 2, 4, "", lambda c: "%s.view(%s.shape[0] * %s.shape[1], -1)" % (c.x, c.x, c.x)),
    ("flatten", 0, 4, "", lambda c: "%s.flatten()" % c.x),
    ("flatten1", 2, 4, "", lambda c: "%s.flatten(1)" % c.x),
    ("flatten01", 2, 4, "", lambda c: "%s.flatten(0, 1)" % c.x),
    ("flatten_last2", 2, 4, "", lambda c: "%s.flatten(-2)" % c.x),
    ("unflatten", 1, 4, "", lambda c: "%s.unflatten(%d, (%d, -1))" % (c.x, c.d(), c.R.choice([1, 2, 3]))),
    ("permute", 2, 4, "", lambda c: "%s.permute(%s)" % (c.x, c.perm())),
    ("permute_view", 2, 4, "", lambda c: "%s.permute(%s).reshape(-1)" % (c.x, c.perm())),
    ("permute_contig_view", 2, 4, "", lambda c: "%s.permute(%s).contiguous().view(-1)" % (c.x, c.perm())),
    ("transpose", 2, 4, "", lambda c: "%s.transpose(%d, %d)" % ((c.x,) + c.two())),
    ("transpose_flatten", 2, 4, "", lambda c: "%s.transpose(0, 1).flatten(1)" % c.x),
    ("t", 2, 2, "", lambda c: "%s.t()" % c.x),
    ("mT", 2, 4, "", lambda c: "%s.mT * 2" % c.x),
    ("movedim", 2, 4, "", lambda c: "%s.movedim(0, -1)" % c.x),
    ("unsqueeze", 0, 4, "", lambda c: "%s.unsqueeze(%d)" % (c.x, c.R.randrange(c.r + 1))),
    ("squeeze", 0, 4, "", lambda c: "%s.squeeze()" % c.x),
    ("squeeze_dim", 1, 4, "", lambda c: "%s.squeeze(%d)" % (c.x, c.d())),
    ("none_index", 0, 4, "", lambda c: "%s[None, ..., None]" % c.x),
    ("unfold", 1, 4, "", lambda c: "%s.unfold(%d, 2, 1)" % (c.x, c.d())),
    ("view_as_y", 0, 4, "y", lambda c: "%s.view_as(%s)" % (c.x, c.y)),
    ("reshape_as_y", 0, 4, "y", lambda c: "%s.reshape(%s.shape)" % (c.x, c.y)),
    # slicing and narrowing
    ("slice_from1", 1, 4, "", lambda c: "%s[1:]" % c.x),
    ("slice_to_m1", 1, 4, "", lambda c: "%s[:-1]" % c.x),
    ("slice_step2", 1, 4, "", lambda c: "%s[::2]" % c.x),
    ("slice_dim1", 2, 4, "", lambda c: "%s[:, 1:]" % c.x),
    ("slice_half", 1, 4, "", lambda c: "%s[%s.shape[0] // 2:]" % (c.x, c.x)),
    ("slice_sym_end", 1, 4, "", lambda c: "%s[: %s.shape[0] - 1]" % (c.x, c.x)),
    ("slice_last_two", 1, 4, "", lambda c: "%s[..., -2:]" % c.x),
    ("slice_inner", 1, 4, "", lambda c: "%s[1:-1]" % c.x),
    ("slice_big", 1, 4, "", lambda c: "%s[:%d]" % (c.x, c.R.choice([3, 5, 100]))),
    ("narrow", 1, 4, "", lambda c: "%s.narrow(%d, 0, 1)" % (c.x, c.d())),
    ("narrow_sym", 1, 4, "", lambda c: (lambda d: "%s.narrow(%d, 1, %s.shape[%d] - 1)" % (c.x, d, c.x, d))(c.d())),
    ("select0", 1, 4, "", lambda c: "%s[0]" % c.x),
    ("select_last", 1, 4, "", lambda c: "%s.select(%d, -1)" % (c.x, c.d())),
    ("flip", 1, 4, "", lambda c: "%s.flip(%d)" % (c.x, c.d())),
    ("roll", 1, 4, "", lambda c: "%s.roll(1, %d)" % (c.x, c.d())),
    # cat / stack / split
    ("cat_self", 1, 4, "", lambda c: "torch.cat([%s, %s], %d)" % (c.x, c.x, c.d())),
    ("cat_slice", 1, 4, "", lambda c: "torch.cat([%s, %s[:1]], 0)" % (c.x, c.x)),
    ("cat_y", 1, 4, "y", lambda c: "torch.cat([%s, %s], %d)" % (c.x, c.y, c.d())),
    ("stack_self", 0, 4, "", lambda c: "torch.stack([%s, %s], %d)" % (c.x, c.x, c.R.randrange(c.r + 1))),
    ("stack_y", 0, 4, "y", lambda c: "torch.stack([%s, %s])" % (c.x, c.y)),
    ("split2", 1, 4, "", lambda c: "%s.split(2, %d)" % (c.x, c.d())),
    ("split_sizes_sym", 1, 4, "", lambda c: "%s.split([1, %s.shape[0] - 1])" % (c.x, c.x)),
    ("chunk", 1, 4, "", lambda c: "%s.chunk(%d, %d)" % (c.x, c.R.choice([2, 3, 4]), c.d())),
    ("tensor_split", 1, 4, "", lambda c: "%s.tensor_split(%d, %d)" % (c.x, c.R.choice([2, 3]), c.d())),
    ("unbind", 1, 4, "", lambda c: "%s.unbind(%d)" % (c.x, c.d())),
    ("split_then_cat", 1, 4, "", lambda c: "torch.cat(%s.chunk(2)[::-1])" % c.x),
    # pad
    ("pad_const", 1, 4, "", lambda c: "F.pad(%s, (1, 2))" % c.x),
    ("pad_two_dims", 2, 4, "", lambda c: "F.pad(%s, (0, 1, 2, 0))" % c.x),
    ("pad_sym", 1, 4, "", lambda c: "F.pad(%s, (0, %s.shape[-1]))" % (c.x, c.x)),
    ("pad_neg", 1, 4, "", lambda c: "F.pad(%s, (-1, 0))" % c.x),
    ("pad_reflect", 2, 4, "", lambda c: "F.pad(%s, (1, 1), mode='reflect')" % c.x),
    ("pad_replicate", 2, 4, "", lambda c: "F.pad(%s, (1, 1), mode='replicate')" % c.x),
    ("pad_to_multiple", 1, 4, "", lambda c: "F.pad(%s, (0, (4 - %s.shape[-1] %% 4) %% 4))" % (c.x, c.x)),
    # conv / pool / interpolate
    ("conv1d", 3, 3, "", lambda c: "F.conv1d(%s, torch.ones(2, %s.shape[1], %d, dtype=%s.dtype))" % (c.x, c.x, c.R.choice([1, 2, 3]), c.x)),
    ("conv1d_pad_stride", 3, 3, "", lambda c: "F.conv1d(%s, torch.ones(3, %s.shape[1], 3, dtype=%s.dtype), padding=1, stride=2)" % (c.x, c.x, c.x)),
    ("conv2d", 4, 4, "", lambda c: "F.conv2d(%s, torch.ones(2, %s.shape[1], %d, %d, dtype=%s.dtype))" % (c.x, c.x, c.R.choice([1, 3]), c.R.choice([1, 2, 3]), c.x)),
    ("conv2d_pad", 4, 4, "", lambda c: "F.conv2d(%s, torch.ones(4, %s.shape[1], 3, 3, dtype=%s.dtype), padding=1)" % (c.x, c.x, c.x)),
    ("conv2d_stride_dil", 4, 4, "", lambda c: "F.conv2d(%s, torch.ones(2, %s.shape[1], 2, 2, dtype=%s.dtype), stride=2, dilation=1)" % (c.x, c.x, c.x)),
    ("conv_transpose1d", 3, 3, "", lambda c: "F.conv_transpose1d(%s, torch.ones(%s.shape[1], 2, 3, dtype=%s.dtype), stride=2)" % (c.x, c.x, c.x)),
    ("max_pool1d", 3, 3, "", lambda c: "F.max_pool1d(%s, 2)" % c.x),
    ("avg_pool1d", 3, 3, "", lambda c: "F.avg_pool1d(%s, 2, ceil_mode=%s)" % (c.x, c.R.choice(["True", "False"]))),
    ("max_pool2d", 4, 4, "", lambda c: "F.max_pool2d(%s, 2)" % c.x),
    ("avg_pool2d_pad", 4, 4, "", lambda c: "F.avg_pool2d(%s, 3, stride=2, padding=1)" % c.x),
    ("adaptive_avg_pool1d", 3, 3, "", lambda c: "F.adaptive_avg_pool1d(%s, %d)" % (c.x, c.R.choice([1, 2, 3]))),
    ("adaptive_avg_pool2d", 4, 4, "", lambda c: "F.adaptive_avg_pool2d(%s, (2, 2))" % c.x),
    ("adaptive_max_pool2d", 4, 4, "", lambda c: "F.adaptive_max_pool2d(%s, 1)" % c.x),
    ("interp_nearest_x2", 3, 4, "", lambda c: "F.interpolate(%s, scale_factor=2.0)" % c.x),
    ("interp_linear_size", 3, 3, "", lambda c: "F.interpolate(%s, size=%d, mode='linear')" % (c.x, c.R.choice([3, 5, 8]))),
    ("interp_bilinear_x2", 4, 4, "", lambda c: "F.interpolate(%s, scale_factor=2, mode='bilinear')" % c.x),
    ("interp_nearest_size", 4, 4, "", lambda c: "F.interpolate(%s, size=(4, 6))" % c.x),
    ("pixel_shuffle", 4, 4, "", lambda c: "F.pixel_shuffle(%s, 1)" % c.x),
    # matmul family
    ("matmul_self_t", 2, 4, "", lambda c: "%s @ %s.mT" % (c.x, c.x)),
    ("matmul_t_self", 2, 4, "", lambda c: "%s.mT @ %s" % (c.x, c.x)),
    ("matmul_vec", 1, 4, "", lambda c: "%s @ torch.ones(%s.shape[-1], dtype=%s.dtype)" % (c.x, c.x, c.x)),
    ("bmm", 3, 3, "", lambda c: "torch.bmm(%s, %s.transpose(1, 2))" % (c.x, c.x)),
    ("linear", 1, 4, "", lambda c: "F.linear(%s, torch.ones(%d, %s.shape[-1], dtype=%s.dtype))" % (c.x, c.R.choice([1, 3, 5]), c.x, c.x)),
    ("linear_bias", 1, 4, "", lambda c: "F.linear(%s, torch.ones(4, %s.shape[-1], dtype=%s.dtype), torch.zeros(4, dtype=%s.dtype))" % (c.x, c.x, c.x, c.x)),
    ("matmul_y", 1, 4, "y", lambda c: "%s @ %s" % (c.x, c.y)),
    ("einsum_dot", 1, 4, "", lambda c: "torch.einsum('...i,...i->...', %s, %s)" % (c.x, c.x)),
    ("sdpa", 3, 4, "", lambda c: "F.scaled_dot_product_attention(%s, %s, %s)" % (c.x, c.x, c.x)),
    ("sdpa_causal", 3, 4, "", lambda c: "F.scaled_dot_product_attention(%s, %s, %s, is_causal=True)" % (c.x, c.x, c.x)),
    ("outer", 1, 1, "", lambda c: "torch.outer(%s, %s[:2])" % (c.x, c.x)),
    ("mm_flat", 2, 4, "", lambda c: "torch.mm(%s.flatten(1), %s.flatten(1).t())" % (c.x, c.x)),
    # masking, data-dependent sizes
    ("masked_fill", 0, 4, "", lambda c: "%s.masked_fill(%s > 0, 0.0)" % (c.x, c.x)),
    ("mul_mask", 0, 4, "", lambda c: "%s * (%s > 0)" % (c.x, c.x)),
    ("bool_index", 1, 4, "u", lambda c: "%s[%s > 0]" % (c.x, c.x)),
    ("bool_index_rows", 2, 4, "u", lambda c: "%s[%s[..., 0] > 0] * 2" % (c.x, c.x)),
    ("masked_select", 0, 4, "u", lambda c: "%s.masked_select(%s > 0)" % (c.x, c.x)),
    ("nonzero", 1, 4, "u", lambda c: "%s.nonzero()" % c.x),
    ("nonzero_view", 1, 1, "u", lambda c: "(%s > 0).nonzero().view(-1)" % c.x),
    ("item_zeros", 0, 4, "u", lambda c: ["N_ = int((%s > 0).sum().item())" % c.x, "torch.zeros(N_, 2)"]),
    ("item_arange", 0, 4, "u", lambda c: ["N_ = (%s > 0).sum().item()" % c.x, "torch.arange(N_)"]),
    ("item_check_slice", 1, 4, "u", lambda c: ["N_ = (%s > 0).sum().item()" % c.x, "torch._check(N_ <= %s.shape[0])" % c.x, "%s[:N_]" % c.x]),
    ("item_check_ones", 0, 4, "u", lambda c: ["N_ = (%s > 0).sum().item()" % c.x, "torch._check(N_ >= 1)", "torch.ones(N_).view(N_, -1)"]),
    ("tolist_zeros", 0, 4, "u", lambda c: ["N_ = (%s > 0).sum().tolist()" % c.x, "torch.zeros(N_)"]),
    ("check_size", 1, 4, "", lambda c: ["torch._check(%s.shape[0] >= 1)" % c.x, "%s * 2" % c.x]),
    ("check_sizes_eq_y", 1, 4, "y", lambda c: ["torch._check(%s.shape[0] == %s.shape[0])" % (c.x, c.y), "%s.sum(0)" % c.x]),
    # factories from sizes
    ("zeros_from_size", 1, 4, "", lambda c: "torch.zeros(%s.shape[0], 3)" % c.x),
    ("ones_shape", 0, 4, "", lambda c: "torch.ones(%s.shape) + %s" % (c.x, c.x)),
    ("full_last", 1, 4, "", lambda c: "torch.full((%s.shape[-1],), 2.0)" % c.x),
    ("arange_size", 1, 4, "", lambda c: "torch.arange(%s.shape[0])" % c.x),
    ("arange_view", 1, 4, "", lambda c: "torch.arange(%s.shape[0] * 2).view(-1, 2)" % c.x),
    ("empty_fill", 0, 4, "", lambda c: "torch.empty(%s.shape).fill_(1.0)" % c.x),
    ("eye_size", 1, 4, "", lambda c: "torch.eye(%s.shape[0])" % c.x),
    ("new_zeros", 1, 4, "", lambda c: "%s.new_zeros(%s.shape[-1], 2)" % (c.x, c.x)),
    ("zeros_like", 0, 4, "", lambda c: "torch.zeros_like(%s) + 1" % c.x),
    ("ones_numel", 0, 4, "", lambda c: "torch.ones(%s.numel())" % c.x),
    ("linspace", 1, 4, "", lambda c: "torch.linspace(0, 1, %s.shape[0])" % c.x),
    ("tril_ones", 1, 4, "", lambda c: "torch.tril(torch.ones(%s.shape[-1], %s.shape[-1]))" % (c.x, c.x)),
    # indexing
    ("index_select_step", 1, 4, "", lambda c: (lambda d: "%s.index_select(%d, torch.arange(0, %s.shape[%d], 2))" % (c.x, d, c.x, d))(c.d())),
    ("index_select_const", 1, 4, "", lambda c: "%s.index_select(0, torch.tensor([0, 0]))" % c.x),
    ("gather_zeros", 1, 4, "", lambda c: "%s.gather(%d, torch.zeros_like(%s, dtype=torch.long))" % (c.x, c.d(), c.x)),
    ("gather_argsort", 1, 4, "", lambda c: "%s.gather(-1, %s.argsort(-1))" % (c.x, c.x)),
    ("index_tensor", 1, 4, "", lambda c: "%s[torch.tensor([0, 0])]" % c.x),
    ("index_arange", 1, 4, "", lambda c: "%s[torch.arange(%s.shape[0]) %% 2 == 0]" % (c.x, c.x)),
    ("scatter", 1, 4, "", lambda c: "%s.scatter(%d, torch.zeros_like(%s, dtype=torch.long), 1.0)" % (c.x, c.d(), c.x)),
    ("index_add", 1, 4, "", lambda c: "%s.index_add(0, torch.zeros(%s.shape[0], dtype=torch.long), %s)" % (c.x, c.x, c.x)),
    ("index_fill", 1, 4, "", lambda c: "%s.index_fill(%d, torch.tensor([0]), 0.0)" % (c.x, c.d())),
    ("take_along_dim", 1, 4, "", lambda c: "torch.take_along_dim(%s, %s.argmax(-1, keepdim=True), -1)" % (c.x, c.x)),
    ("embedding", 1, 4, "", lambda c: "F.embedding(torch.arange(%s.shape[0]) %% 3, torch.ones(3, 4))" % c.x),
    ("one_hot", 1, 4, "", lambda c: "F.one_hot(%s.argmax(-1), 5)" % c.x),
    # repeat / expand
    ("repeat", 1, 4, "", lambda c: "%s.repeat(%s)" % (c.x, _ones_rest(c, 2))),
    ("repeat_interleave", 1, 4, "", lambda c: "%s.repeat_interleave(2, %d)" % (c.x, c.d())),
    ("tile", 0, 4, "", lambda c: "%s.tile((2,))" % c.x),
    ("expand_new", 0, 4, "", lambda c: "%s.unsqueeze(0).expand(3, *%s.shape)" % (c.x, c.x)),
    ("expand_last", 0, 4, "", lambda c: "%s.unsqueeze(-1).expand(*%s.shape, 3)" % (c.x, c.x)),
    ("expand_as_y", 0, 4, "y", lambda c: "%s.expand_as(%s)" % (c.x, c.y)),
    ("expand_m1", 1, 4, "", lambda c: "%s[:1].expand(4, %s)" % (c.x, ", ".join(["-1"] * (c.r - 1))) if c.r > 1 else "%s[:1].expand(4)" % c.x),
    # cumsum / sort / topk
    ("cumsum", 1, 4, "", lambda c: "%s.cumsum(%d)" % (c.x, c.d())),
    ("cumprod", 1, 4, "", lambda c: "%s.cumprod(%d)" % (c.x, c.d())),
    ("cummax", 1, 4, "", lambda c: "%s.cummax(%d).values" % (c.x, c.d())),
    ("logcumsumexp", 1, 4, "", lambda c: "%s.logcumsumexp(%d)" % (c.x, c.d())),
    ("sort", 1, 4, "", lambda c: "%s.sort(%d).values" % (c.x, c.d())),
    ("argsort", 1, 4, "", lambda c: "%s.argsort(%d, descending=True)" % (c.x, c.d())),
    ("topk", 1, 4, "", lambda c: "%s.topk(%d, %d).values" % (c.x, c.R.choice([1, 2]), c.d())),
    ("kthvalue", 1, 4, "", lambda c: "%s.kthvalue(1, %d).values" % (c.x, c.d())),
    ("msort", 1, 4, "", lambda c: "%s.msort()" % c.x),
    # norms and friends
    ("layer_norm", 1, 4, "", lambda c: "F.layer_norm(%s, %s.shape[-1:])" % (c.x, c.x)),
    ("group_norm", 2, 4, "", lambda c: "F.group_norm(%s, 1)" % c.x),
    ("batch_norm_eval", 2, 4, "", lambda c: "F.batch_norm(%s, torch.zeros(%s.shape[1]), torch.ones(%s.shape[1]))" % (c.x, c.x, c.x)),
    ("normalize", 1, 4, "", lambda c: "F.normalize(%s, dim=-1)" % c.x),
    ("tril", 2, 4, "", lambda c: "%s.tril()" % c.x),
    ("triu_diag", 2, 4, "", lambda c: "%s.triu(1)" % c.x),
    ("diagonal", 2, 4, "", lambda c: "%s.diagonal(0, -2, -1)" % c.x),
    ("diag_embed", 1, 3, "", lambda c: "torch.diag_embed(%s)" % c.x),
    ("mse_loss", 0, 4, "", lambda c: "F.mse_loss(%s, torch.zeros_like(%s))" % (c.x, c.x)),
    ("cross_entropy", 2, 2, "", lambda c: "F.cross_entropy(%s, torch.zeros(%s.shape[0], dtype=torch.long))" % (c.x, c.x)),
    ("cdist", 2, 3, "", lambda c: "torch.cdist(%s, %s)" % (c.x, c.x)),
]
OP_BY_NAME = {o[0]: o for o in OPS}

# Ops of the chained population only (flat programs draw from OPS alone, so seeds keep their
# programs): the size arithmetic, shape branches, in-place updates and attention and MLP blocks of
# the programs people compile.
CHAIN_OPS = OPS + [
    ("cond_size_gt", 1, 4, "", lambda c: (lambda d: "(%s * 2 if %s.size(%d) > %d else %s + 1)" % (
        c.x, c.x, d, max(0, c.s[d] + c.R.choice([-1, 0, 1])), c.x))(c.d())),
    ("cond_size_eq", 2, 4, "", lambda c: "(%s.sum(0) if %s.size(0) == %s.size(-1) else %s.sum(-1))" % (
        c.x, c.x, c.x, c.x)),
    ("reshape_floordiv", 1, 4, "", lambda c: "%s.reshape(%s.shape[0] // 2, -1)" % (c.x, c.x)),
    ("slice_floordiv_last", 1, 4, "", lambda c: "%s[..., : %s.size(-1) // 2]" % (c.x, c.x)),
    ("numel_view", 0, 4, "", lambda c: "%s.reshape(%s.numel())" % (c.x, c.x)),
    ("sqrt_scale", 1, 4, "", lambda c: "%s / math.sqrt(%s.size(-1))" % (c.x, c.x)),
    ("size_float_mul", 1, 4, "", lambda c: "%s * (%s.size(0) / 2)" % (c.x, c.x)),
    ("size_int_scale", 1, 4, "", lambda c: "torch.zeros(int(%s.size(0) * 1.5) + 1)" % c.x),
    ("max_size_ones", 1, 4, "", lambda c: "torch.ones(max(%s.size(0), %d))" % (c.x, c.R.choice([1, 3, 4]))),
    ("min_size_slice", 1, 4, "", lambda c: "%s[: min(%s.size(0), %d)]" % (c.x, c.x, c.R.choice([2, 3]))),
    ("t_contig_view", 2, 2, "", lambda c: "%s.t().contiguous().view(-1)" % c.x),
    ("transpose_contig_view", 2, 4, "", lambda c: "%s.transpose(0, -1).contiguous().view(%s.size(-1), -1)" % (c.x, c.x)),
    ("new_zeros_sym", 1, 4, "", lambda c: "%s.new_zeros(%s.size(0), 3)" % (c.x, c.x)),
    ("zeros_double", 1, 4, "", lambda c: "torch.zeros(%s.size(0) * 2, %s.size(-1))" % (c.x, c.x)),
    ("arange_bcast_last", 1, 4, "", lambda c: "%s + torch.arange(%s.size(-1), dtype=%s.dtype)" % (c.x, c.x, c.x)),
    ("view_shape_split", 1, 4, "", lambda c: "%s.view(*%s.shape[:-1], -1, 1)" % (c.x, c.x)),
    ("mean_expand_as", 1, 4, "", lambda c: "%s.mean(-1, keepdim=True).expand_as(%s)" % (c.x, c.x)),
    ("chunk_swap_cat", 1, 4, "", lambda c: "torch.cat(%s.chunk(2, -1)[::-1], -1)" % c.x),
    ("split_half_first", 1, 4, "", lambda c: "%s.split(max(1, %s.size(-1) // 2), -1)[0]" % (c.x, c.x)),
    ("attention_block", 3, 4, "", lambda c: "(%s @ %s.transpose(-1, -2) / math.sqrt(%s.size(-1))).softmax(-1) @ %s" % (
        c.x, c.x, c.x, c.x)),
    ("causal_mask_fill", 2, 4, "", lambda c: ["N_m = torch.ones(%s.size(-2), %s.size(-1), dtype=torch.bool).tril()" % (c.x, c.x),
                                              "%s.masked_fill(~N_m, float('-inf')).softmax(-1)" % c.x]),
    ("heads_split", 3, 3, "", lambda c: "%s.view(%s.size(0), %s.size(1), %d, -1).transpose(1, 2)" % (
        c.x, c.x, c.x, c.R.choice([1, 2]))),
    ("heads_merge", 4, 4, "", lambda c: "%s.transpose(1, 2).reshape(%s.size(0), %s.size(2), -1)" % (c.x, c.x, c.x)),
    ("mlp_block", 1, 4, "", lambda c: (lambda h: "F.linear(F.gelu(F.linear(%s, torch.ones(%d, %s.size(-1), dtype=%s.dtype))), "
                                                 "torch.ones(%s.size(-1), %d, dtype=%s.dtype))" % (
                                                     c.x, h, c.x, c.x, c.x, h, c.x))(c.R.choice([4, 8]))),
    ("residual_norm", 1, 4, "", lambda c: "F.layer_norm(%s + %s.relu(), %s.shape[-1:])" % (c.x, c.x, c.x)),
    ("clone_setitem", 1, 4, "", lambda c: ["N_c = %s.clone()" % c.x, "N_c[..., 0] = 0", "N_c"]),
    ("clone_add_", 0, 4, "", lambda c: ["N_c = %s.clone()" % c.x, "N_c.add_(1)", "N_c"]),
    ("clone_view_fill", 1, 4, "", lambda c: ["N_c = %s.clone()" % c.x, "N_c.view(-1)[:1] = 1", "N_c * 2"]),
    ("where_size_scalar", 1, 4, "", lambda c: "torch.where(%s > 0, %s, %s.size(0))" % (c.x, c.x, c.x)),
    ("sum_dims_list", 2, 4, "", lambda c: "%s.sum(dim=[0, -1])" % c.x),
    ("outer_bcast", 1, 3, "", lambda c: "%s.unsqueeze(1) * %s.unsqueeze(0)" % (c.x, c.x)),
    ("bool_mask_sum", 1, 4, "u", lambda c: "%s[%s > 0].sum(0, keepdim=True)" % (c.x, c.x)),
    ("nonzero_count_zeros", 1, 4, "u", lambda c: "torch.zeros(%s.nonzero().size(0), %s.size(-1))" % (c.x, c.x)),
    ("shape_list_zeros", 1, 4, "", lambda c: ["N_s = list(%s.shape)" % c.x, "N_s[-1] = N_s[-1] * 2", "%s.new_ones(N_s)" % c.x]),
    ("size_tuple_len", 1, 4, "", lambda c: "%s.reshape(%s.size()[0], -1).sum(-1)" % (c.x, c.x)),
    ("pad_to_size", 1, 4, "", lambda c: (lambda m: "F.pad(%s, (0, %d - %s.size(-1) %% %d))" % (c.x, m, c.x, m))(
        c.R.choice([4, 8]))),
]

DTYPES = [("float32", 60), ("float64", 10), ("float16", 10), ("bfloat16", 10), ("int64", 10)]
SIZES = [2, 3, 4, 5, 6, 8]
WORKLOAD_SIZES = [0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 10, 16]


def _weighted(R, pairs):
    total = sum(w for _, w in pairs)
    k = R.uniform(0, total)
    for v, w in pairs:
        k -= w
        if k <= 0:
            return v
    return pairs[-1][0]


def input_expr(shape, dtype):
    dims = ", ".join(map(str, shape))
    if dtype == "int64":
        return "torch.randint(-3, 4, (%s))" % (dims + "," if len(shape) == 1 else dims)
    if not shape:
        dims = "()"
    return "torch.randn(%s%s)" % (dims, "" if dtype == "float32" else ", dtype=torch." + dtype)


# ------------------------------------------------------------------------------------------------
# A program: inputs with one shape per call, ops, and the dynamism. All of it data (JSON), so that
# the minimizer can drop parts and the golden can record it.

def gen_program(R):
    n_in = _weighted(R, [(1, 55), (2, 35), (3, 10)])
    rank = _weighted(R, [(0, 4), (1, 22), (2, 34), (3, 22), (4, 18)])
    x_shape = [R.choice(SIZES) if R.random() > 0.08 else R.choice([1, 2]) for _ in range(rank)]
    names = ["x", "y", "z"][:n_in]
    inputs = [{"name": "x", "dtype": _weighted(R, DTYPES), "rel": None, "shape": x_shape}]
    for nm in names[1:]:
        # another input: x's shape (dims tracking x's in every call), with some dims 1, or a shape of its own
        kind = _weighted(R, [("same", 50), ("bcast", 25), ("own", 25)])
        if kind == "own":
            r = _weighted(R, [(1, 30), (2, 40), (3, 30)])
            rel = ["own"] * r
            shape = [R.choice(SIZES) for _ in range(r)]
        else:
            rel = ["x%d" % i if kind == "same" or R.random() < 0.6 else "1" for i in range(rank)]
            shape = [x_shape[i] if rel[i] != "1" else 1 for i in range(rank)]
        dtype = inputs[0]["dtype"] if R.random() < 0.8 else _weighted(R, DTYPES)
        inputs.append({"name": nm, "dtype": dtype, "rel": rel, "shape": shape})

    mode = _weighted(R, [("auto", 30), ("dynamic_true", 20), ("mark", 30), ("sources", 12), ("static", 8)])
    n_calls = 1
    if mode == "auto":
        n_calls = R.randint(2, 8)
    elif mode in ("dynamic_true", "mark", "sources") and R.random() < 0.25:
        n_calls = R.randint(2, 4)
    # x's shape in each call: the first as drawn, later ones change one or two dims
    x_calls = [list(x_shape)]
    varying = [i for i in range(rank) if R.random() < 0.6] or ([R.randrange(rank)] if rank else [])
    for _ in range(n_calls - 1):
        s = list(x_calls[-1])
        for i in varying:
            if R.random() < 0.7:
                s[i] = R.choice(WORKLOAD_SIZES)
        x_calls.append(s)
    for inp in inputs:
        inp["calls"] = []
        for xs in x_calls:
            if inp["rel"] is None:
                inp["calls"].append(list(xs))
            else:
                inp["calls"].append([xs[int(r[1:])] if r.startswith("x") else (1 if r == "1" else inp["shape"][i])
                                     for i, r in enumerate(inp["rel"])])
        del inp["shape"]
    prog = {"inputs": inputs, "mode": mode, "ops": [], "marks": [], "env": {}, "dynamic": mode == "dynamic_true",
            "dtype_change": None}
    if mode == "auto" and n_calls > 2 and R.random() < 0.1:
        prog["dtype_change"] = R.randrange(1, n_calls)
    if mode == "mark":
        for _ in range(_weighted(R, [(1, 70), (2, 30)])):
            inp = R.choice(inputs)
            r = len(inp["calls"][0])
            if not r:
                continue
            dim = R.randrange(r)
            size = inp["calls"][0][dim]
            kind = _weighted(R, [("dynamic", 45), ("maybe_dynamic", 25), ("unbacked", 30)])
            m = {"input": inp["name"], "dim": dim, "kind": kind}
            if R.random() < 0.35:
                m["min"] = R.choice([0, 1, 2, max(0, size - 1), size])
                m["max"] = R.choice([size, size + 1, 2 * size + 2, 64])
            if kind == "unbacked" and R.random() < 0.15:
                m["strict"] = True
            if kind == "unbacked" and R.random() < 0.1:
                m["hint_override"] = 32
            prog["marks"].append(m)
    if mode == "sources":
        var = _weighted(R, [("TORCH_COMPILE_DYNAMIC_SOURCES", 60), ("TORCH_COMPILE_UNBACKED_SOURCES", 25),
                            ("TORCH_COMPILE_STATIC_SOURCES", 15)])
        nm = R.choice(names)
        r = len(inputs[names.index(nm)]["calls"][0])
        spec = _weighted(R, [("L['%s']" % nm, 30), ("L['%s']:%d" % (nm, R.randrange(max(r, 1))), 45),
                             ("L\\['[%s]'\\]:0" % "".join(names), 15), ("L\\['.*'\\]", 10)])
        prog["env"] = {var: spec}
        if var == "TORCH_COMPILE_STATIC_SOURCES":
            prog["dynamic"] = True
    prog["unbacked_config"] = False
    return prog


def _call_exprs(prog, i, used_only=False):
    out = []
    for k, inp in enumerate(prog["inputs"]):
        if used_only and k not in used_inputs(prog):
            continue
        dtype = inp["dtype"]
        if prog["dtype_change"] is not None and i >= prog["dtype_change"] and inp["name"] == "x":
            dtype = "float64" if dtype != "float64" else "float32"
        out.append(input_expr(inp["calls"][i], dtype))
    return out


def _call_args(prog, i, torch):
    torch.manual_seed(0)  # as dynamo_scenarios' child makes them
    return [eval(e, {"torch": torch}) for e in _call_exprs(prog, i)]


def _run_op(lines, out, envs, torch, small=False):
    """Each call's environment after the op's lines (the last one's value bound to `out`), or None
    where a call raises or gives something other than tensors (more than 6 dims or 100,000 elements,
    with `small`): an invalid draw."""
    code = "\n".join(lines[:-1] + ["%s = %s" % (out, lines[-1])])
    after = []
    for env in envs:
        e = dict(env)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(code, e)
        except Exception:  # noqa: BLE001: an invalid draw
            return None
        flat = e[out] if isinstance(e[out], (tuple, list)) else [e[out]]
        if not flat or not all(isinstance(t, torch.Tensor) and (not small or t.dim() <= 6 and t.numel() <= 100000)
                               for t in flat):
            return None
        after.append(e)
    return after


def _op_ok(lines, prog, torch, F):
    """The op runs eagerly on every call's inputs (a valid program), giving tensors."""
    names = [inp["name"] for inp in prog["inputs"]]
    envs = (dict(zip(names, _call_args(prog, i, torch)), torch=torch, F=F)
            for i in range(len(prog["inputs"][0]["calls"])))
    return _run_op(lines, "__out", envs, torch) is not None


def add_ops(R, prog, torch, F, n_ops):
    if prog.get("population") == "chained":
        return add_chained_ops(R, prog, torch, F, n_ops)
    names = [inp["name"] for inp in prog["inputs"]]
    tries = 0
    while len(prog["ops"]) < n_ops and tries < 60:
        tries += 1
        name, lo, hi, flags, make = R.choice(OPS)
        xi = R.randrange(len(names))
        x = names[xi]
        s = prog["inputs"][xi]["calls"][0]
        if not lo <= len(s) <= hi:
            continue
        y = None
        if "y" in flags:
            others = [n for n in names if n != x]
            if not others:
                continue
            y = R.choice(others)
        c = Ctx(R, x, s, y)
        code = make(c)
        lines = code if isinstance(code, list) else [code]
        if not _op_ok(lines, prog, torch, F):
            continue
        prog["ops"].append({"op": name, "lines": lines, "u": "u" in flags})
    prog["unbacked_config"] = any(o["u"] for o in prog["ops"])
    return prog


def _tensor_values(env, names, torch):
    """(expression, call-0 shape) of each tensor among `names` in a call's environment; a tuple or
    list result offers its first element."""
    out = []
    for n in names:
        v = env[n]
        if isinstance(v, (tuple, list)) and v and isinstance(v[0], torch.Tensor):
            out.append(("%s[0]" % n, list(v[0].shape)))
        elif isinstance(v, torch.Tensor):
            out.append((n, list(v.shape)))
    return out


def add_chained_ops(R, prog, torch, F, n_ops):
    """Ops that read the inputs or earlier ops' results (o0, o1[0], ...), each run eagerly on every
    call after the ones before it; a result later ops read is returned only sometimes."""
    import math
    names = [inp["name"] for inp in prog["inputs"]]
    n_calls = len(prog["inputs"][0]["calls"])
    envs = []
    for i in range(n_calls):
        envs.append(dict(zip(names, _call_args(prog, i, torch)), torch=torch, F=F, math=math))
    results = []
    tries = 0
    while len(prog["ops"]) < n_ops and tries < 80:
        tries += 1
        name, lo, hi, flags, make = R.choice(CHAIN_OPS)
        ins = _tensor_values(envs[0], names, torch)
        outs = _tensor_values(envs[0], results, torch)
        pool = outs[-3:] if outs and R.random() < 0.75 else ins
        x, s = R.choice(pool)
        if not lo <= len(s) <= hi:
            continue
        y = None
        if "y" in flags:
            others = [v for v in ins + outs if v[0] != x]
            if not others:
                continue
            y = R.choice(others)[0]
        k = len(prog["ops"])
        code = make(Ctx(R, x, s, y))
        lines = [l.replace("N_", "n%d" % k) for l in (code if isinstance(code, list) else [code])]
        new_envs = _run_op(lines, "o%d" % k, envs, torch, small=True)
        if new_envs is None:
            continue
        envs = new_envs
        results.append("o%d" % k)
        prog["ops"].append({"op": name, "lines": lines, "u": "u" in flags, "id": k})
    prog["unbacked_config"] = any(o["u"] for o in prog["ops"])
    if prog["ops"] and R.random() < 0.5:
        text = ["\n".join(op["lines"]) for op in prog["ops"]]
        prog["returns"] = [op["id"] for j, op in enumerate(prog["ops"])
                           if not any(re.search(r"\bo%d\b" % op["id"], t) for t in text[j + 1:])]
    return prog


def used_inputs(prog):
    """The inputs some op reads (Dynamo lifts no other: a mark on one would mark nothing)."""
    text = "\n".join(l for op in prog["ops"] for l in op["lines"])
    return [k for k, inp in enumerate(prog["inputs"]) if re.search(r"\b%s\b" % inp["name"], text)]


def program_source(prog):
    names = [prog["inputs"][k]["name"] for k in used_inputs(prog)]
    body = []
    outs = []
    for k, op in enumerate(prog["ops"]):
        i = op.get("id", k)  # a chained op keeps its id when the minimizer drops ops before it
        lines = [l.replace("N_", "n%d" % i) for l in op["lines"]]
        body += lines[:-1] + ["o%d = %s" % (i, lines[-1])]
        if prog.get("returns") is None or i in prog["returns"]:
            outs.append("o%d" % i)
    if not outs:  # the minimizer dropped every returned op
        outs = ["o%d" % prog["ops"][-1].get("id", len(prog["ops"]) - 1)]
    body.append("return %s" % (", ".join(outs) + ("," if len(outs) == 1 else "")))
    head = "import math\n" if re.search(r"\bmath\.", "\n".join(body)) else ""
    return head + "import torch.nn.functional as F\n\n\ndef f(%s):\n%s\n" % (
        ", ".join(names), "\n".join("    " + l for l in body))


def _mark_code_and_arg(m):
    opts = []
    if "min" in m:
        opts += ["min=%d" % m["min"], "max=%d" % m["max"]]
    if m.get("strict"):
        opts.append("strict=True")
    if "hint_override" in m:
        opts.append("hint_override=%d" % m["hint_override"])
    fn = {"dynamic": "torch._dynamo.mark_dynamic", "maybe_dynamic": "torch._dynamo.maybe_mark_dynamic",
          "unbacked": "torch._dynamo.decorators.mark_unbacked"}[m["kind"]]
    code = "%s(%s, %d%s)" % (fn, m["input"], m["dim"], "".join(", " + o for o in opts))
    arg_opts = [o.replace("strict=True", "strict") for o in opts]
    arg = "L['%s']:%d=%s%s" % (m["input"], m["dim"], m["kind"], "".join("," + o for o in arg_opts))
    return code, arg


def describe(prog):
    n = len(prog["inputs"][0]["calls"])
    bits = [prog["mode"]]
    if prog["dynamic"]:
        bits.append("dynamic=True")
    bits += [_mark_code_and_arg(m)[1] for m in prog["marks"]]
    bits += ["%s=%s" % kv for kv in prog["env"].items()]
    return "ops %s; %s; %d call%s" % (", ".join(o["op"] for o in prog["ops"]), ", ".join(bits), n, "s" if n > 1 else "")


def to_scenario(prog, name, fuzz):
    n_calls = len(prog["inputs"][0]["calls"])
    calls = [tuple(_call_exprs(prog, i, used_only=True)) for i in range(n_calls)]
    marks, fp = [], []
    used = {prog["inputs"][k]["name"] for k in used_inputs(prog)}
    for m in prog["marks"]:
        if m["input"] not in used:
            continue
        code, arg = _mark_code_and_arg(m)
        marks.append(code)
        fp += ["--mark", arg]
    if prog["dynamic"]:
        fp.insert(0, "--no-assume-static-by-default")
    if n_calls > 1 or prog["mode"] == "auto":
        fp.insert(0, "WORKLOAD")
    sc = dynamo_scenarios.S(name, "fuzz seed %s program %s: %s" % (fuzz["seed"], fuzz["program"], describe(prog)),
                            program_source(prog), calls, marks="\n".join(marks), fakeprop=fp,
                            compile_kwargs={"dynamic": True} if prog["dynamic"] else {},
                            config=dict(UNBACKED) if prog["unbacked_config"] else {}, env=dict(prog["env"]))
    sc["fuzz"] = dict(fuzz, program_spec=prog)
    return sc


# ------------------------------------------------------------------------------------------------
# Running one program on both sides, and the classification of what disagrees.

def _split_top(s, sep=","):
    depth, parts, cur = 0, [], ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def canon(text):
    """One guard, assert or replacement text with the argument order that is not part of the
    decision made canonical."""
    if not isinstance(text, str):
        return text
    t = re.sub(r"  +# .*$", "", text.strip())
    m = re.match(r"^(\w+) = (.+) \((trivial_lhs|trivial_rhs)\)$", t)
    if m:
        return "%s (trivial)" % " = ".join(sorted([m.group(1), m.group(2)]))
    m = re.match(r"^(Eq|Ne)\((.*)\)$", t)
    if m:
        args = _split_top(m.group(2))
        if len(args) == 2:
            return "%s(%s)" % (m.group(1), ", ".join(sorted(args)))
    for op in (" == ", " != "):
        if t.count(op) == 1 and "(" not in t.split(op)[0][-1:]:
            a, b = t.split(op)
            return op.join(sorted([a.strip(), b.strip()]))
    m = re.match(r"^(\d+/\d+: )(.*)$", t)  # a recompile reason "0/0: guard"
    if m:
        return m.group(1) + canon(m.group(2))
    return t


_ZERO_LOWER = re.compile(r"^0 <= (L\['\w+'\]\.size\(\)\[\d+\])$")
_CONST_SIZE = re.compile(r"^L\['\w+'\]\.size\(\)\[\d+\] == -?\d+$")


def _text_equal(aspect, theirs, ours):
    kind = aspect.split("@")[0]
    if theirs is None or ours is None:
        return kind == "error" and False
    if kind == "error":
        return True  # both raised: the same decision, the texts differ
    if kind == "guards":
        theirs = [g for g in theirs if not _ZERO_LOWER.match(g)]
        ours = [g for g in ours if not _ZERO_LOWER.match(g) and not (_CONST_SIZE.match(g) and g not in theirs)]
    if isinstance(theirs, list) and isinstance(ours, list):
        def norm(xs):
            return sorted(json.dumps([canon(v) for v in x]) if isinstance(x, list) else canon(x) for x in xs)
        return norm(theirs) == norm(ours)
    return canon(theirs) == canon(ours)


_EVAL_LINE = re.compile(r"^\w \S+\] \[(\d+/\d+)\] (eval|runtime_assert) (?:\[guard suppressed\] )?(.+?) \[guard added\](.*)$")
_LAMBDA_LINE = re.compile(r"^\w \S+\] \[(\d+/\d+)\] \[__guards\] \+- LAMBDA_GUARD: (.+?)(?:  +# (.*))?$")
# Where torch reads a tensor's metadata rather than running an op: Dynamo's TensorVariable of an op's
# output and AOTAutograd's output-metadata extraction ask for contiguity (issue 39, item 11).
# Dynamo deciding a size comparison for the program's own Python (an `if` or conditional expression
# on sizes): the decision is made in bytecode, and no op of the ATen graph holds it.
_NOT_AN_OP_FN = re.compile(r"\((?:\S+ in (check_contiguous_sizes_strides|is_contiguous)|"
                          r"_dynamo/variables/\S+ in evaluate_expr)\)\s*$")


def outside_graph_texts(golden):
    """{frame: set of texts} of torch's guards, asserts and installed guards made outside the ops of
    the ATen graph: with no user frame, in a tensor-metadata check (contiguity of an output), or
    where Dynamo decided a comparison of sizes for the program's Python control flow."""
    out = {}
    for line in golden["torch"]["log"]:
        m = _EVAL_LINE.match(line)
        if m and ("program.py" not in m.group(4) or _NOT_AN_OP_FN.search(m.group(4))):
            out.setdefault(m.group(1), set()).add(canon(m.group(3)))
        m = _LAMBDA_LINE.match(line)
        if m and ("program.py" not in (m.group(3) or "") or _NOT_AN_OP_FN.search(m.group(3) or "")):
            out.setdefault(m.group(1), set()).add(canon(m.group(2)))
    return out


_SRC = re.compile(r"L\['\w+'\]\.(?:size|stride)\(\)\[\d+\]")


def _fakeprop_guards_added(golden, run, frame):
    """fakeprop's guards added in one compile: its --log (one compile) or its --trace-dir frame."""
    if replay.fakeprop_frame(frame) in run["trace"]:
        return run["trace"][replay.fakeprop_frame(frame)]["guards_added"]
    if frame == replay.single_frame(golden):
        return dynamo_log.frame_events([r[3] for r in run["records"]])["guards_added"]
    return []


def outside_explained(golden, run):
    """{frame: bool}: whether torch's guards added in that frame differ from fakeprop's only by guards
    made outside the graph's ops (and differ at all)."""
    outside = outside_graph_texts(golden)
    out = {}
    for frame, ev in golden["torch"]["normalized"].items():
        t = {canon(g) for g in ev["guards_added"]}
        o = {canon(g) for g in _fakeprop_guards_added(golden, run, frame)}
        extra_t, extra_o = t - o, o - t
        out[frame] = bool(extra_t) and extra_t <= outside.get(frame, set()) and not extra_o
    return out


def classify(golden, aspect, theirs, ours, run):
    """`text`, `outside-graph` or `wrong` for an aspect that disagrees. Outside-graph: torch's
    extra guards (or asserts) are all made outside the graph's ops, and what fakeprop has instead are
    only the ranges they refine; or, for the installed guards, the recompile reasons and the compiles
    logged, torch's guards added in that compile (in every compile, for a workload's recompiles)
    differ from fakeprop's only by such guards."""
    if _text_equal(aspect, theirs, ours):
        return "text"
    kind, _, frame = aspect.partition("@")
    frame = frame or replay.single_frame(golden)
    outside = outside_graph_texts(golden)
    if kind in ("guards_added", "runtime_asserts", "guards") and isinstance(theirs, list) and isinstance(ours, list):
        t, o = {canon(v) for v in theirs}, {canon(v) for v in ours}
        extra_t, extra_o = t - o, o - t
        if kind == "guards":
            extra_t = {g for g in extra_t if not _ZERO_LOWER.match(g)}
            extra_o = {g for g in extra_o if not (_CONST_SIZE.match(g) and g not in t) and not _ZERO_LOWER.match(g)}
        og = outside.get(frame, set())
        if extra_t and extra_t <= og:
            srcs = set()
            for g in extra_t:
                srcs |= set(_SRC.findall(g))
            # what fakeprop has instead: the ranges torch refined from them
            if all(re.match(r"^-?\d+ <= .+|.+ <= -?\d+$", g) and set(_SRC.findall(g)) <= srcs for g in extra_o):
                return "outside-graph"
    explained = outside_explained(golden, run)
    if kind == "guards" and explained.get(frame):
        return "outside-graph"
    if kind in ("recompiles", "log_frames") and any(explained.values()):
        wrong_frames = [f for f, ev in golden["torch"]["normalized"].items() if not explained.get(f)
                        and {canon(g) for g in ev["guards_added"]} != {canon(g) for g in _fakeprop_guards_added(golden, run, f)}]
        if not wrong_frames:
            return "outside-graph"
    if kind == "recompiles" and isinstance(theirs, list):
        flat_o = {canon(r) for block in (ours or []) for r in block}
        extra = [canon(r) for block in theirs for r in block if canon(r) not in flat_o]
        og = set().union(*outside.values()) if outside else set()
        if extra and all(any(g in r for g in og) for r in extra):
            return "outside-graph"
    return "wrong"


def run_program(prog, name, fuzz, work):
    """(golden, per-aspect results, crash text or None); golden None when torch's side gives
    nothing to compare (the harness failed, or a graph break made more than one frame)."""
    sc = to_scenario(prog, name, fuzz)
    d = tempfile.mkdtemp(prefix=name + "_", dir=work)
    try:
        golden = dynamo_scenarios.run_scenario(sc, d, d)
    except Exception as e:  # noqa: BLE001
        lines = [l for l in str(e).strip().splitlines() if l.strip() and not dynamo_log.GLOG.match(l)]
        return None, "torch side failed: %s" % (lines[-1][:200] if lines else "?"), None, d
    if any(not f.startswith("0/") for f in golden["torch"]["frames"]) or golden["graph"]["compiled_graphs"] > 1 \
            and not golden["fakeprop"]["workload"]:
        return None, "graph break (frames %s)" % ",".join(golden["torch"]["frames"]), None, d
    if torch_internal_error(golden):
        return None, "torch internal error: %s" % torch_internal_error(golden), None, d
    path = os.path.join(d, name + ".golden.json")
    return score_golden(golden, path) + (d,)


def torch_internal_error(golden):
    """The first line of torch's error when Dynamo failed inside itself (InternalTorchDynamoError, such
    as PendingUnbackedSymbolNotFound): torch contradicting itself, so nothing to compare."""
    err = golden["torch"].get("error") or {}
    if err.get("type") != "InternalTorchDynamoError":
        return None
    return (err.get("core") or err.get("message") or "").split("\n")[0][:200]


def kept_golden(name, work):
    """(golden, path) of program `name` as a run with --keep WORK left it, or None (its torch side
    failed, or it gave no single-frame golden)."""
    for d in sorted(os.listdir(work)):
        path = os.path.join(work, d, name + ".golden.json")
        if d.startswith(name + "_") and os.path.exists(path):
            with open(path) as fh:
                golden = json.load(fh)
            if any(not f.startswith("0/") for f in golden["torch"]["frames"]) or \
                    golden["graph"]["compiled_graphs"] > 1 and not golden["fakeprop"]["workload"] or \
                    torch_internal_error(golden):
                return None
            return golden, path
    return None


def score_golden(golden, path):
    """(golden, per-aspect results, crash text or None) of fakeprop (FAKEPROP_BIN) on a golden."""
    try:
        run = replay.run_fakeprop.__wrapped__(path)
    except Exception as e:  # noqa: BLE001: a fakeprop exit other than 0 or 1, or no JSON report
        lines = [l for l in str(e).splitlines() if l.strip()]
        crash = next((l for l in lines if "error" in l.lower() or "cannot" in l.lower()), lines[-1] if lines else "?")
        return golden, None, crash[:300]
    results = []
    for a in replay.aspects(golden):
        try:
            theirs, ours = replay.compare(golden, a, run)
        except Exception as e:  # noqa: BLE001
            return golden, None, "compare %s: %s" % (a, e)
        if theirs == ours:
            results.append((a, None, theirs, ours))
        else:
            results.append((a, classify(golden, a, theirs, ours, run), theirs, ours))
    return golden, results, None


def signature(results, crash):
    if crash:
        return ("crash", "crash")
    for a, cls, _, _ in results:
        if cls:
            return (cls, a.split("@")[0])
    return None


def _persists(target, results, crash):
    if target == ("crash", "crash"):
        return bool(crash)
    if crash or results is None:
        return False
    return any(cls == target[0] and a.split("@")[0] == target[1] for a, cls, _, _ in results)


def _drop_call(prog, i):
    p = copy.deepcopy(prog)
    for inp in p["inputs"]:
        del inp["calls"][i]
    if p["dtype_change"] is not None:
        if i < p["dtype_change"]:
            p["dtype_change"] -= 1
        if p["dtype_change"] <= 0 or p["dtype_change"] >= len(p["inputs"][0]["calls"]):
            p["dtype_change"] = None
    return p


def minimize(prog, name, fuzz, target, work, log, max_tries):
    """Ops, then calls, then dynamic dims (varying sizes, marks, source specs) removed while the
    disagreement `target` persists. Returns (program, golden, results, crash, dir)."""
    tries = [0]

    def attempt(p):
        if tries[0] >= max_tries:
            return None
        tries[0] += 1
        g, res, crash, d = run_program(p, name, fuzz, work)
        if g is not None and _persists(target, res, crash):
            return (p, g, res, crash, d)
        return None

    cur = (prog, None, None, None, None)  # not yet run under `name`
    # ops
    i = len(cur[0]["ops"]) - 1
    while i >= 0 and len(cur[0]["ops"]) > 1:
        p = copy.deepcopy(cur[0])
        del p["ops"][i]
        p["unbacked_config"] = any(o["u"] for o in p["ops"])
        r = attempt(p)
        if r:
            cur = r
        i -= 1
    # calls (the first stays: it compiled the graph the examples come from)
    i = len(cur[0]["inputs"][0]["calls"]) - 1
    while i >= 1:
        r = attempt(_drop_call(cur[0], i))
        if r:
            cur = r
        i -= 1
    # dims: a size that varies over the calls held at the first call's; marks and source specs dropped
    for k, inp in enumerate(cur[0]["inputs"]):
        for dim in range(len(inp["calls"][0])):
            if len({tuple(c)[dim] for c in cur[0]["inputs"][k]["calls"]}) > 1:
                p = copy.deepcopy(cur[0])
                first = p["inputs"][k]["calls"][0][dim]
                for c in p["inputs"][k]["calls"]:
                    c[dim] = first
                for other in p["inputs"]:  # an input that tracks this dim follows
                    if other["rel"] and k == 0:
                        for j, rl in enumerate(other["rel"]):
                            if rl == "x%d" % dim:
                                for c in other["calls"]:
                                    c[j] = first
                r = attempt(p)
                if r:
                    cur = r
    for j in range(len(cur[0]["marks"]) - 1, -1, -1):
        p = copy.deepcopy(cur[0])
        del p["marks"][j]
        r = attempt(p)
        if r:
            cur = r
    if cur[0]["env"]:
        p = copy.deepcopy(cur[0])
        p["env"] = {}
        r = attempt(p)
        if r:
            cur = r
    if cur[1] is None:
        cur = (prog,) + run_program(prog, name, fuzz, work)
    log("    minimized in %d runs: %s" % (tries[0], describe(cur[0])))
    return cur


def known_lines(name, results, crash):
    tag = {"wrong": "[gap]", "outside-graph": "[graph]", "text": "[text]"}
    out = []
    if crash:
        return ["# %s: fakeprop crashed: %s" % (name, crash)]
    for a, cls, theirs, ours in results:
        if cls:
            out.append("%s %s: %s %s; torch %s, fakeprop %s" % (name, a, tag[cls], cls, json.dumps(theirs)[:300],
                                                                json.dumps(ours)[:300]))
    return out


def run_specs(path, out):
    """Each hand-chosen program of `path` through torch and fakeprop, its golden written to `out`:
    the replayed case of a class the fuzzer found and fakeprop now gets right."""
    with open(path) as fh:
        specs = json.load(fh)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dynamo_fuzz_specs_")
    rel = os.path.relpath(path, ROOT)
    for sp in specs:
        fuzz = {"seed": sp.get("seed", 0), "program": sp.get("program", 0), "program_spec": sp["program_spec"],
                "command": "scripts/dynamo_fuzz.py --specs %s" % rel, "why": sp["why"]}
        golden, results, crash, d = run_program(sp["program_spec"], sp["name"], fuzz, work)
        if golden is None:
            print("%s: no golden (%s)" % (sp["name"], results))
            continue
        golden["fuzz"] = dict(golden.get("fuzz") or {}, **fuzz)
        with open(os.path.join(out, sp["name"] + ".golden.json"), "w") as fh:
            json.dump(golden, fh, indent=1, sort_keys=True)
            fh.write("\n")
        shutil.copy(os.path.join(d, sp["name"] + ".graph.json"), os.path.join(out, sp["name"] + ".graph.json"))
        bad = [(asp, cls) for asp, cls, _, _ in (results or []) if cls]
        print("%s: %s" % (sp["name"], "CRASH " + crash if crash else "%d/%d agree%s" % (
            len(results) - len(bad), len(results), "".join(" %s:%s" % b for b in bad))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(ROOT, "testdata", "dynamo_fuzz"))
    ap.add_argument("--minimize", type=int, default=30, help="at most this many programs minimized (the first of each class)")
    ap.add_argument("--max-tries", type=int, default=14, help="torch runs per minimization")
    ap.add_argument("--max-ops", type=int, help="ops per program, at most (default 4, chained 6)")
    ap.add_argument("--population", choices=["flat", "chained"], default="flat",
                    help="flat: independent ops over the inputs (the seeds of earlier runs); chained: ops "
                    "over earlier results too, with size arithmetic, shape branches and in-place updates")
    ap.add_argument("--print-only", action="store_true", help="print the programs, run nothing")
    ap.add_argument("--only", type=int, nargs="*", help="run only these programs of the seed's run (their "
                    "texts do not depend on the others), each disagreeing one minimized")
    ap.add_argument("--keep", help="a directory for every program's golden (default: a temporary one)")
    ap.add_argument("--specs", help="a JSON file of [{\"name\", \"why\", \"program_spec\"}]: run each program "
                    "as written (a fixed class's reproduction, taken from a kept golden's fuzz.program_spec) "
                    "and write its golden to --out, whether or not it agrees")
    ap.add_argument("--resume", action="store_true", help="with --keep: score the programs an earlier, "
                    "stopped run left in DIR from there and run torch for the others")
    ap.add_argument("--rescore", action="store_true", help="with --keep: run no torch, score the goldens an "
                    "earlier run with the same --seed and --keep left there with FAKEPROP_BIN, and minimize nothing "
                    "(how a fix changes a run's summary)")
    a = ap.parse_args()
    if a.specs:
        return run_specs(a.specs, a.out)
    if (a.rescore or a.resume) and not a.keep:
        ap.error("--rescore and --resume need --keep DIR")

    import torch
    import torch.nn.functional as F

    def log(msg):
        print(msg, flush=True)

    chained = a.population == "chained"
    max_ops = a.max_ops or (6 if chained else 4)
    progs = []
    for i in range(a.programs):
        R = random.Random(("chained:%d:%d" if chained else "%d:%d") % (a.seed, i))
        p = gen_program(R)
        if chained:
            p["population"] = "chained"
        add_ops(R, p, torch, F, R.randint(2 if chained else 1, max_ops))
        if not p["ops"]:
            add_ops(R, p, torch, F, 1)
        progs.append(p)
    if a.print_only:
        for i, p in enumerate(progs):
            print("# program %d: %s\n%s" % (i, describe(p), program_source(p)))
        return

    os.makedirs(a.out, exist_ok=True)
    work = a.keep or tempfile.mkdtemp(prefix="dynamo_fuzz_")
    os.makedirs(work, exist_ok=True)
    kept_dirs = os.listdir(work)
    stats = {"programs": 0, "agree": 0, "total": 0, "wrong": 0, "outside-graph": 0, "text": 0, "crashes": 0,
             "skipped": 0}
    classes = {}  # (class, aspect kind) -> {"aspects": n, "programs": set, "case": name}
    minimized = []
    minimized_keys = set()
    start = time.time()
    command = "scripts/dynamo_fuzz.py --seed %d --programs %d" % (a.seed, a.programs) + (
        " --population chained" if chained else "") + (
        " --only %s" % " ".join(map(str, a.only)) if a.only is not None else "")
    for i, prog in enumerate(progs):
        if a.only is not None and i not in a.only:
            continue
        name = ("c%d_p%04d" if chained else "s%d_p%04d") % (a.seed, i)
        fuzz = {"seed": a.seed, "program": i, "command": command}
        if a.rescore or a.resume and any(d.startswith(name + "_") for d in kept_dirs):
            kept = kept_golden(name, work)
            golden, results, crash = score_golden(*kept) if kept else (None, "no kept golden", None)
        else:
            golden, results, crash, _ = run_program(prog, name, fuzz, work)
        if golden is None:
            stats["skipped"] += 1
            log("%s skipped: %s (%s)" % (name, results, describe(prog)))
            continue
        stats["programs"] += 1
        if crash:
            stats["crashes"] += 1
            classes.setdefault(("crash", "crash"), {"aspects": 0, "programs": set(), "case": None})
            classes[("crash", "crash")]["programs"].add(name)
            log("%s CRASH %s (%s)" % (name, crash, describe(prog)))
        else:
            for asp, cls, _, _ in results:
                stats["total"] += 1
                if cls is None:
                    stats["agree"] += 1
                else:
                    stats[cls] += 1
                    e = classes.setdefault((cls, asp.split("@")[0]), {"aspects": 0, "programs": set(), "case": None})
                    e["aspects"] += 1
                    e["programs"].add(name)
            bad = [(asp, cls) for asp, cls, _, _ in results if cls]
            log("%s %d/%d agree%s (%s)" % (name, len(results) - len(bad), len(results),
                                          "".join(" %s:%s" % b for b in bad), describe(prog)))
        sig = signature(results, crash)
        key = sig and sig + (prog["mode"],)  # the first of each class and aspect per kind of dynamism
        if sig and not a.rescore and (a.only is not None or key not in minimized_keys and len(minimized) < a.minimize):
            minimized_keys.add(key)
            mname = "%s_%s_%s" % (name, sig[0].replace("-", "_"), sig[1])
            p2, g2, res2, crash2, d2 = minimize(prog, mname, fuzz, sig, work, log, a.max_tries)
            g2["fuzz"].update({"class": sig[0], "aspect": sig[1], "minimized_from": name})
            with open(os.path.join(a.out, mname + ".golden.json"), "w") as fh:
                json.dump(g2, fh, indent=1, sort_keys=True)
                fh.write("\n")
            shutil.copy(os.path.join(d2, mname + ".graph.json"), os.path.join(a.out, mname + ".graph.json"))
            classes[sig]["case"] = ((classes[sig]["case"] + ", ") if classes[sig]["case"] else "") + "`%s`" % mname
            minimized.append((mname, known_lines(mname, res2 or [], crash2)))
    dt = time.time() - start

    summary = "programs %d, aspects %d/%d agree, wrong %d, outside-graph %d, text %d, crashes %d" % (
        stats["programs"], stats["agree"], stats["total"], stats["wrong"], stats["outside-graph"], stats["text"],
        stats["crashes"])
    print()
    print("%d generated, %d skipped (no single-frame golden, or a torch internal error), %.0f s; torch %s" % (
        len(progs), stats["skipped"], dt, torch.__version__))
    print(summary)
    print()
    print("| class | aspect | disagreeing aspects | programs | minimized cases |")
    print("| --- | --- | ---: | ---: | --- |")
    order = {"wrong": 0, "outside-graph": 1, "text": 2, "crash": 3}
    for (cls, asp), e in sorted(classes.items(), key=lambda kv: (order[kv[0][0]], -len(kv[1]["programs"]), kv[0][1])):
        print("| %s | %s | %s | %d | %s |" % (cls, asp, e["aspects"] if cls != "crash" else "-", len(e["programs"]),
                                              e["case"] or "-"))
    print()
    print("# known differences of the minimized cases (a draft for testdata/dynamo_fuzz/known_differences.txt)")
    for mname, lines in minimized:
        for l in lines:
            print(l)


if __name__ == "__main__":
    main()
