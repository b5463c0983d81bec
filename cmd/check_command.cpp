// fakeprop check: compare models against baselines in parallel; exit 1 on a regression.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "cli.h"
#include "fakeprop/driver/infer.h"
#include "fakeprop/report/baseline.h"
#include "fakeprop/util/input_file.h"
#include "fakeprop/util/output_file.h"

namespace fakeprop::cli {

namespace fs = std::filesystem;

CLI::App* add_check_command(CLI::App& app, CheckCommand& cmd) {
  CLI::App* sub = app.add_subcommand("check", "Compare MODELs with their baselines; exit 1 when shapes regressed");
  sub->add_option("MODEL", cmd.models, "Models to check (.onnx, .json FX graphs, .pt2 archives)")->required();
  sub->add_option("--baseline", cmd.baseline,
                  "Baseline file (one model) or directory (one <model file name>.baseline.json per model)")
      ->required()
      ->type_name("FILE|DIR");
  sub->add_flag("--update", cmd.update, "Write the current results as the new baselines (atomically)");
  sub->add_flag("--json", cmd.json, "Print the comparison as JSON");
  sub->add_flag("--nodes", cmd.nodes, "Also compare every node's output shapes and dtypes");
  sub->add_option("--shard", cmd.shard, "Check only shard K of N (1-based), splitting the sorted model list")
      ->type_name("K/N");
  sub->add_option("-j,--jobs", cmd.jobs, "Models checked at once (default: every core)");
  const size_t before = sub->get_options().size();
  cmd.flags.add_to(*sub);
  const std::vector<CLI::Option*> all = sub->get_options();
  cmd.flag_options.assign(all.begin() + static_cast<std::ptrdiff_t>(before), all.end());
  return sub;
}

namespace {

struct ModelOutcome {
  std::string model;
  std::string baseline_path;
  std::string error;  // bad input
  std::vector<BaselineChange> changes;
  bool updated = false;
  bool regressed() const {
    return std::any_of(changes.begin(), changes.end(), [](const BaselineChange& c) { return c.regression; });
  }
};

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

// The inference options given on the command line, as arguments in the
// order CLI11 lists the options ("--input", "x=1,3,8,8", "--dynamic", "x").
std::vector<std::string> given_options(const CheckCommand& cmd) {
  std::vector<std::string> args;
  for (const CLI::Option* o : cmd.flag_options) {
    if (o->count() == 0) continue;
    const std::string name = o->get_name(false, true);  // "--input": its long name, dashes included
    if (name == "--op-rules") continue;  // the rules' digest is compared, not their path
    if (o->get_expected_max() == 0) {  // a flag
      for (size_t i = 0; i < o->count(); ++i) args.push_back(name);
      continue;
    }
    for (const std::string& v : o->results()) {
      args.push_back(name);
      args.push_back(v);
    }
  }
  return args;
}

// InferOptions from recorded arguments, parsed as the command line parses them.
InferOptions options_from(const std::vector<std::string>& recorded, const std::string& where) {
  CLI::App app;
  InferFlags flags;
  flags.add_to(app);
  std::vector<std::string> reversed(recorded.rbegin(), recorded.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw InputError(where + ": the options it records do not parse: " + e.what());
  }
  return flags.to_options();
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

// A model runs with the options given on the command line; without any, with
// the ones its baseline records (each model its own), so a baseline made with
// --input is checked with it.
ModelOutcome check_one(const std::string& model, const CheckCommand& cmd, const InferOptions& options,
                       const std::vector<std::string>& given, size_t model_count) {
  ModelOutcome out;
  out.model = model;
  try {
    out.baseline_path = baseline_path_for(model, cmd.baseline, model_count);
    std::optional<nlohmann::json> before;
    std::error_code ec;
    if (!cmd.update || fs::exists(out.baseline_path, ec)) {
      try {
        before = read_baseline(out.baseline_path);
      } catch (const InputError&) {
        if (!cmd.update) throw;  // --update replaces what it cannot read
      }
    }
    std::vector<std::string> used = given;
    InferOptions run_options = options;
    if (given.empty() && before && before->contains("options")) {
      used = before->at("options").get<std::vector<std::string>>();
      run_options = options_from(used, out.baseline_path);
      run_options.op_rules = options.op_rules;
      for (const ProtectedFile& f : options.input_files) run_options.input_files.push_back(f);
    }
    RunResult r = infer_file(model, run_options);
    nlohmann::json now = make_baseline(r, cmd.nodes);
    now["model"] = fs::path(model).filename().string();
    now["options"] = used;
    now["fakeprop_version"] = FAKEPROP_VERSION;
    if (cmd.update) {
      write_output_file(out.baseline_path, now.dump(2) + "\n", r.input_files);
      out.updated = true;
      return out;
    }
    out.changes = compare_baselines(*before, now);
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace

int run_check(const CheckCommand& cmd) {
  const InferOptions options = cmd.flags.to_options();
  const std::vector<std::string> given = given_options(cmd);
  const std::vector<std::string> models = select_shard(cmd.models, cmd.shard);
  std::vector<ModelOutcome> outcomes(models.size());
  unsigned jobs = cmd.jobs ? cmd.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<size_t>(models.size(), 1)));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < models.size();)
      outcomes[i] = check_one(models[i], cmd, options, given, cmd.models.size());
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  bool bad_input = false, regressed = false;
  nlohmann::json report = nlohmann::json::array();
  for (const auto& o : outcomes) {
    bad_input |= !o.error.empty();
    regressed |= o.regressed();
    if (cmd.json) {
      nlohmann::json changes = nlohmann::json::array();
      for (const auto& c : o.changes)
        changes.push_back(
            {{"regression", c.regression}, {"kind", std::string(change_kind_name(c.kind))}, {"what", c.what}});
      report.push_back({{"model", o.model},
                        {"baseline", o.baseline_path},
                        {"status", !o.error.empty() ? "error" : o.updated ? "updated" : o.regressed() ? "regressed" : "ok"},
                        {"error", o.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.error)},
                        {"changes", std::move(changes)}});
      continue;
    }
    if (!o.error.empty()) {
      std::cerr << "fakeprop: error: " << o.error << "\n";
      continue;
    }
    if (o.updated) {
      std::cout << o.model << ": baseline written to " << o.baseline_path << "\n";
      continue;
    }
    std::cout << o.model << ": " << (o.regressed() ? "REGRESSED" : "ok");
    if (!o.changes.empty()) std::cout << " (" << o.changes.size() << " change" << (o.changes.size() > 1 ? "s" : "") << ")";
    std::cout << "\n";
    for (const auto& c : o.changes)
      std::cout << "  " << (c.regression ? "- " : "+ ") << change_kind_name(c.kind) << ": " << c.what << "\n";
  }
  if (cmd.json) std::cout << report.dump(2) << "\n";
  if (bad_input) return 2;
  return regressed ? 1 : 0;
}

}  // namespace fakeprop::cli
