// The JSON report (contract: fakeprop.report/1) and the human summary.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>

#include "fakeprop/value/run_result.h"
#include "fakeprop/util/json_writer.h"

namespace fakeprop {

// The JSON report as text, laid out as nlohmann's dump(2) (keys sorted, two
// spaces). `extra` adds top-level members computed elsewhere (recompiles,
// stats). Values are VALs: tensors, {"sym": DIM}, arrays, null; a DIM is an
// integer when static, else Python text over symbol names.
// `compact`: no whitespace (the same members, for machines).
// The same document, to any writer (the Python package builds its objects).
void write_report(const RunResult& r, const nlohmann::json& extra, DocumentWriter& w);
std::string report_json(const RunResult& r, const nlohmann::json& extra = nlohmann::json::object(),
                        bool compact = false);
// The same text, streamed to `sink` in chunks of about `chunk` bytes, ending
// with a newline. The default is small enough for malloc to place the buffer
// in memory the freed model left (a larger one is a fresh mapping that adds
// its size to the peak), large enough that writes cost nothing.
void stream_report_json(const RunResult& r, const nlohmann::json& extra, const TextSink& sink,
                        size_t chunk = size_t{64} << 10);
void print_summary(const RunResult& r, std::ostream& out);

}  // namespace fakeprop
