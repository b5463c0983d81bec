// `fakeprop plan` and `fakeprop.plan`: one run of a model, then its memory
// and FLOPs at the sizes the user lists, the largest size of a symbol whose
// peak fits a budget, and for two symbols the frontier. The answer is a
// JSON document (format fakeprop.plan/1, docs/sizing.md); each front door
// prints it its own way.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakeprop/options/infer_options.h"
#include "fakeprop/value/run_result.h"

namespace fakeprop {

struct PlanRequest {
  std::string model;
  InferOptions options;
  std::string budget;              // "80GiB"; empty: no budget
  std::vector<std::string> solve;  // one or two symbols (a name, a source L['x'].size()[0], or x:0)
  std::vector<std::string> at;     // table rows, "batch=4,seq=128"
  std::vector<std::string> set;    // NAME=V: a value other than the hint for every question
  std::string html_path;           // --html: the HTML report with live bytes at the solved size too
};

struct PlanOutcome {
  nlohmann::json report;
  // 0, or 1 when a budget was given and no admissible size fits it.
  int status = 0;
  std::unique_ptr<RunResult> result;
  nlohmann::json html_extra = nlohmann::json::object();  // what --html adds to the report (plan.live)
};

// Throws InputError for a budget that does not parse, a symbol the model
// does not have (the message lists those it has), a peak that needs sizes
// fakeprop could not compute, or one that depends on an unbacked size with
// no value.
PlanOutcome run_plan(const PlanRequest& request);
// The same over a run already made (the package's in-process programs);
// `request.model` only names it in messages.
PlanOutcome plan_run(std::unique_ptr<RunResult> result, const PlanRequest& request);

// The plan report as people read it.
std::string plan_text(const nlohmann::json& report);

}  // namespace fakeprop
