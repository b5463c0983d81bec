// fakeprop_fx_walk: fakeprop's FX propagation measured the way
// scripts/bench/ftp_peer.py measures FakeTensorProp: the graph is loaded once,
// then walked N times in one process; prints one JSON line with the first
// (cold) and the best (warm) walk:
//
//   fakeprop_fx_walk GRAPH.json [N]
//   {"nodes": 761, "first_ms": 0.74, "best_ms": 0.49, "runs_ms": [...]}
//
// Each walk is a whole fx::run_graph: a fresh ShapeEnv and result, every
// node's rule, requires_grad, aliasing and fake gradients.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "fakeprop/fx/graph.h"
#include "fakeprop/fx/interpreter.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fakeprop_fx_walk GRAPH.json [N]\n");
    return 2;
  }
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  try {
    const fakeprop::fx::Graph graph = fakeprop::fx::load_graph(argv[1]);
    const fakeprop::InferOptions options;
    std::vector<double> times;
    size_t nodes = 0;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const fakeprop::RunResult result = fakeprop::fx::run_graph(graph, options);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      nodes = result.nodes.size();
    }
    double best = times[0];
    for (double t : times) best = std::min(best, t);
    std::printf("{\"nodes\": %zu, \"first_ms\": %.4f, \"best_ms\": %.4f, \"runs_ms\": [", nodes, times[0], best);
    for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.4f", i ? ", " : "", times[i]);
    std::printf("]}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
    return 2;
  }
  return 0;
}
