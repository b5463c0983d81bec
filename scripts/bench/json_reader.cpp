// fakeprop_json_reader: the FX loader's JSON reader against simdjson (Debian's
// libsimdjson-dev), on the same files, best of N in one process:
//   document   fx::JsonDocument::parse (the flat entry array the loader walks)
//   graph      fx::parse_graph (that, and the Graph built from it: the CLI's load phase)
//   simdjson   simdjson's DOM parse (padded copy made outside the timing)
//   simdjson+walk  the DOM parse and a visit of every value, as a loader would
//   fakeprop_json_reader [--repeat N] FILE...   prints one JSON line per file
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "fakeprop/fx/graph.h"
#include "fakeprop/fx/json_document.h"

namespace {

double best_us(int repeat, const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto t = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count());
  }
  return best;
}

size_t visit(simdjson::dom::element e) {
  size_t n = 1;
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      for (simdjson::dom::element x : e.get_array()) n += visit(x);
      break;
    case simdjson::dom::element_type::OBJECT:
      for (auto field : e.get_object()) n += visit(field.value) + field.key.empty();
      break;
    case simdjson::dom::element_type::STRING: n += e.get_string().value().size() > 0; break;
    default: break;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 50;
  int first = 1;
  if (argc > 2 && std::strcmp(argv[1], "--repeat") == 0) {
    repeat = std::atoi(argv[2]);
    first = 3;
  }
  for (int i = first; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const simdjson::padded_string padded(text);
    simdjson::dom::parser parser;
    size_t values = 0;
    const double document = best_us(repeat, [&] { (void)fakeprop::fx::JsonDocument::parse(text); });
    const double graph = best_us(repeat, [&] { (void)fakeprop::fx::parse_graph(text, argv[i]); });
    const double simd = best_us(repeat, [&] { (void)parser.parse(padded).value(); });
    const double simd_walk = best_us(repeat, [&] { values = visit(parser.parse(padded).value()); });
    std::printf(
        "{\"file\": \"%s\", \"bytes\": %zu, \"values\": %zu, \"document_us\": %.1f, \"graph_us\": %.1f, "
        "\"simdjson_us\": %.1f, \"simdjson_walk_us\": %.1f}\n",
        argv[i], text.size(), values, document, graph, simd, simd_walk);
  }
  return 0;
}
