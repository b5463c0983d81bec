#include "fakeprop/driver/check.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

#include "fakeprop/driver/infer.h"
#include "fakeprop/driver/read_options.h"
#include "fakeprop/options/infer_flags.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/input_file.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop {

namespace fs = std::filesystem;

bool ModelCheck::regressed() const {
  return std::any_of(changes.begin(), changes.end(), [](const BaselineChange& c) { return c.regression; });
}

std::string_view ModelCheck::status() const {
  return !error.empty() ? "error" : updated ? "updated" : regressed() ? "regressed" : "ok";
}

nlohmann::json CheckOutcome::document() const {
  nlohmann::json report = nlohmann::json::array();
  for (const ModelCheck& m : models) {
    nlohmann::json changes = nlohmann::json::array();
    for (const BaselineChange& c : m.changes)
      changes.push_back({{"regression", c.regression}, {"kind", std::string(change_kind_name(c.kind))}, {"what", c.what}});
    report.push_back({{"model", m.model},
                      {"baseline", m.baseline_path},
                      {"status", std::string(m.status())},
                      {"error", m.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.error)},
                      {"changes", std::move(changes)}});
  }
  return report;
}

std::string CheckOutcome::summary() const {
  std::ostringstream out;
  for (const ModelCheck& m : models) {
    if (!m.error.empty()) continue;
    if (m.updated) {
      out << m.model << ": baseline written to " << m.baseline_path << "\n";
      continue;
    }
    out << m.model << ": " << (m.regressed() ? "REGRESSED" : "ok");
    if (!m.changes.empty()) out << " (" << m.changes.size() << " change" << (m.changes.size() > 1 ? "s" : "") << ")";
    out << "\n";
    for (const BaselineChange& c : m.changes)
      out << "  " << (c.regression ? "- " : "+ ") << change_kind_name(c.kind) << ": " << c.what << "\n";
  }
  return out.str();
}

namespace {

std::vector<std::string> select_shard(std::vector<std::string> models, const std::string& shard) {
  std::sort(models.begin(), models.end());
  if (shard.empty()) return models;
  const size_t slash = shard.find('/');
  int64_t k = 0, n = 0;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    k = std::stoll(shard.substr(0, slash));
    n = std::stoll(shard.substr(slash + 1));
  } catch (const std::exception&) {
    throw InputError("--shard " + shard + ": expected K/N, e.g. 2/8");
  }
  if (n < 1 || k < 1 || k > n) throw InputError("--shard " + shard + ": need 1 <= K <= N");
  std::vector<std::string> mine;
  for (size_t i = 0; i < models.size(); ++i)
    if (static_cast<int64_t>(i % static_cast<size_t>(n)) == k - 1) mine.push_back(models[i]);
  return mine;
}

std::string baseline_path_for(const std::string& model, const std::string& baseline, size_t model_count) {
  std::error_code ec;
  if (fs::is_directory(baseline, ec))
    return (fs::path(baseline) / (fs::path(model).filename().string() + ".baseline.json")).string();
  if (model_count > 1)
    throw InputError("--baseline " + baseline + ": checking several models needs a baseline directory");
  return baseline;
}

nlohmann::json read_baseline(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (no baseline: create it with --update)");
  }
  nlohmann::json before;
  try {
    before = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not a fakeprop baseline: " + e.what());
  }
  if (before.value("format", "") != "fakeprop.baseline/1")
    throw InputError(path + ": not a fakeprop baseline (format fakeprop.baseline/1)");
  return before;
}

// InferOptions from the flags a baseline records.
InferOptions options_from(const std::vector<std::string>& recorded, const std::string& where) {
  InferArgs args;
  try {
    args = args_from_flags(recorded);
  } catch (const InputError& e) {
    throw InputError(where + ": the options it records do not parse: " + e.what());
  }
  return read_options(args);
}

// --max-peak-growth: a peak_memory_grew change past the percentage becomes a
// regression, unless the baseline was made with other options or rules (then
// nothing is, as compare_baselines says first).
void gate_peak_growth(const nlohmann::json& before, const nlohmann::json& now, double percent,
                      std::vector<BaselineChange>& changes) {
  if (percent < 0 || !before.contains("memory") || !now.contains("memory")) return;
  const nlohmann::json &b = before["memory"]["peak_hint"], &a = now["memory"]["peak_hint"];
  if (!b.is_number_integer() || !a.is_number_integer()) return;
  const double was = static_cast<double>(b.get<int64_t>()), is = static_cast<double>(a.get<int64_t>());
  for (const BaselineChange& c : changes)
    if (c.kind == ChangeKind::OptionsChanged || c.kind == ChangeKind::OpRulesChanged) return;
  for (BaselineChange& c : changes) {
    if (c.kind != ChangeKind::PeakMemoryGrew) continue;
    const double growth = was > 0 ? (is - was) / was * 100 : 100;  // from nothing: all growth
    if (growth <= percent) continue;
    c.regression = true;
    char text[96];
    std::snprintf(text, sizeof text, " (+%.2f%%, over --max-peak-growth %g%%)", growth, percent);
    c.what += text;
  }
}

// A model runs with the options given; without any, with the ones its
// baseline records (each model its own), so a baseline made with --input is
// checked with it.
ModelCheck check_one(const std::string& model, const CheckRequest& req, const InferOptions& options,
                     const std::vector<std::string>& given) {
  ModelCheck out;
  out.model = model;
  try {
    out.baseline_path = baseline_path_for(model, req.baseline, req.models.size());
    std::optional<nlohmann::json> before;
    std::error_code ec;
    if (!req.update || fs::exists(out.baseline_path, ec)) {
      try {
        before = read_baseline(out.baseline_path);
      } catch (const InputError&) {
        if (!req.update) throw;  // --update replaces what it cannot read
      }
    }
    std::vector<std::string> used = given;
    InferOptions run_options = options;
    if (given.empty() && before && before->contains("options")) {
      used = before->at("options").get<std::vector<std::string>>();
      run_options = options_from(used, out.baseline_path);
      run_options.op_rules = options.op_rules;
      run_options.op_rules_digest = options.op_rules_digest;
      for (const ProtectedFile& f : options.input_files) run_options.input_files.push_back(f);
    }
    RunResult r = infer_file(model, run_options);
    nlohmann::json now = make_baseline(r, req.nodes);
    now["model"] = fs::path(model).filename().string();
    now["options"] = used;
    now["fakeprop_version"] = FAKEPROP_VERSION;
    if (req.update) {
      write_output_file(out.baseline_path, now.dump(2) + "\n", r.input_files);
      out.updated = true;
      return out;
    }
    out.changes = compare_baselines(*before, now);
    gate_peak_growth(*before, now, req.max_peak_growth, out.changes);
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace

CheckOutcome run_check(const CheckRequest& req) {
  const InferOptions options = read_options(req.args);
  const std::vector<std::string> given = recorded_flags(req.args);
  const std::vector<std::string> models = select_shard(req.models, req.shard);
  CheckOutcome outcome;
  outcome.models.resize(models.size());
  unsigned jobs = req.jobs ? req.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<size_t>(models.size(), 1)));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < models.size();) outcome.models[i] = check_one(models[i], req, options, given);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  bool bad_input = false, regressed = false;
  for (const ModelCheck& m : outcome.models) {
    bad_input |= !m.error.empty();
    regressed |= m.regressed();
  }
  outcome.exit_code = bad_input ? 2 : regressed ? 1 : 0;
  return outcome;
}

}  // namespace fakeprop
