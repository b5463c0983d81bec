#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (onnxruntime-node) on random inputs and
// prints the shape of every graph output as JSON. Used by check_exports.py,
// which first exposes every intermediate value as a graph output.
//
// stdin:  {"model": PATH, "modules": DIR (where node_modules/onnxruntime-node lives),
//          "inputs": [{"name": str, "dtype": "float32"|"int64"|..., "dims": [int], "high": int}]}
// stdout: {"ok": true, "shapes": {output name: [int] | null}} or {"ok": false, "error": str}
'use strict';

const path = require('path');

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

// Deterministic pseudo-random numbers (the shapes must not depend on the run).
function lcg(seed) {
  let state = BigInt(seed);
  return () => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(state >> 33n) / 2147483648;
  };
}

function makeTensor(ort, spec, random) {
  const count = spec.dims.reduce((a, b) => a * b, 1);
  const high = spec.high || 1;
  switch (spec.dtype) {
    case 'float32': {
      const data = new Float32Array(count);
      for (let i = 0; i < count; ++i) data[i] = random() * 2 - 1;
      return new ort.Tensor('float32', data, spec.dims);
    }
    case 'int64': {
      const data = new BigInt64Array(count);
      for (let i = 0; i < count; ++i) data[i] = BigInt(Math.floor(random() * high));
      return new ort.Tensor('int64', data, spec.dims);
    }
    case 'int32': {
      const data = new Int32Array(count);
      for (let i = 0; i < count; ++i) data[i] = Math.floor(random() * high);
      return new ort.Tensor('int32', data, spec.dims);
    }
    case 'bool': {
      const data = new Uint8Array(count);
      for (let i = 0; i < count; ++i) data[i] = random() < 0.5 ? 1 : 0;
      return new ort.Tensor('bool', data, spec.dims);
    }
    default:
      throw new Error(`input '${spec.name}': unsupported dtype ${spec.dtype}`);
  }
}

async function main() {
  const request = JSON.parse(await readStdin());
  const ort = require(path.join(path.resolve(request.modules), 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(request.model, {
    graphOptimizationLevel: 'disabled',  // keep every value of the graph as it is
    intraOpNumThreads: 1,
  });
  const random = lcg(12345);
  const feeds = {};
  for (const spec of request.inputs) feeds[spec.name] = makeTensor(ort, spec, random);
  const results = await session.run(feeds);
  const shapes = {};
  for (const name of session.outputNames) {
    const t = results[name];
    shapes[name] = t && t.dims ? Array.from(t.dims, Number) : null;
  }
  process.stdout.write(JSON.stringify({ok: true, shapes}) + '\n');
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ok: false, error: String(e && e.message ? e.message : e)}) + '\n');
  process.exitCode = 0;
});
