// The report's `memory` and `compute` sections (docs/sizing.md describes
// them) and the summary's lines for them.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "fakeprop/util/document_writer.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

void write_memory_section(const RunResult& r, DocumentWriter& w);
void write_compute_section(const RunResult& r, DocumentWriter& w);
void print_sizing_summary(const RunResult& r, std::ostream& out);

// "1.5 GiB", "512 B": powers of 1024 for bytes.
std::string byte_text(int64_t bytes);
// "3.2 GFLOP": powers of 1000.
std::string flop_text(int64_t flops);

}  // namespace fakeprop
