#include "cli.h"

#include <algorithm>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <type_traits>
#include <variant>

#include <unistd.h>

#include "fakeprop/options/infer_flags.h"
#include "fakeprop/util/error.h"
#include "fakeprop/util/heap_trim.h"

namespace fakeprop::cli {

namespace {

// std::cout's buffer, written to file descriptor 1 with the first write
// error kept: a report lost on a full disk or a closed pipe is an error
// (exit 2), not exit 0, and the message says why.
class StdoutBuffer : public std::streambuf {
 public:
  StdoutBuffer() { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* at = pbase();
    while (at < pptr() && error_ == 0) {
      const ssize_t n = ::write(STDOUT_FILENO, at, static_cast<size_t>(pptr() - at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = n < 0 ? errno : ENOSPC;
      else at += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);  // on an error the rest is dropped: the run fails anyway
    return error_ == 0;
  }

  char buffer_[1 << 16];
  int error_ = 0;
};

int flushed(int status, const StdoutBuffer& out) {
  std::cout.flush();
  if (out.error() == 0) return status;
  std::cerr << "fakeprop: error: standard output: " << std::strerror(out.error()) << "\n";
  return 2;
}

}  // namespace

// Every row of the option table (options/infer_flags.h) becomes a flag or an option.
void InferFlags::add_to(CLI::App& app) {
  for (const InferFlag& f : infer_flags()) {
    const std::string flag(f.flag), help(f.help);
    CLI::Option* o = std::visit(
        [&](auto member) {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(args.*member)>, bool>)
            return app.add_flag(flag, args.*member, help);
          else
            return app.add_option(flag, args.*member, help);
        },
        f.member);
    switch (f.check) {
      case InferFlag::Check::Device: o->check(CLI::IsMember({"cpu", "cuda", "cuda:0"})); break;
      case InferFlag::Check::Positive: o->check(CLI::PositiveNumber); break;
      case InferFlag::Check::NonNegative: o->check(CLI::NonNegativeNumber); break;
      case InferFlag::Check::None: break;
    }
    if (!f.value_name.empty()) o->type_name(std::string(f.value_name));
  }
}

int run(int argc, char** argv) {
  allow_heap_trimming(true);  // this process is fakeprop's own
  CLI::App app{"fakeprop: symbolic shape inference for ONNX models and FX graphs, as PyTorch's FakeTensor and ShapeEnv do it",
               "fakeprop"};
  app.set_version_flag("--version", std::string("fakeprop ") + FAKEPROP_VERSION);
  app.require_subcommand(0, 1);
  InferCommand infer;
  CLI::App* infer_app = add_infer_command(app, infer);
  CheckCommand check;
  CLI::App* check_app = add_check_command(app, check);
  PlanCommand plan;
  CLI::App* plan_app = add_plan_command(app, plan);

  // `infer` is the default subcommand: `fakeprop model.onnx ...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] != "infer" && args[0] != "check" && args[0] != "plan" && args[0] != "-h" && args[0] != "--help" &&
      args[0] != "--version")
    args.insert(args.begin(), "infer");
  std::reverse(args.begin(), args.end());
  StdoutBuffer out;
  struct Restore {
    std::streambuf* saved;
    ~Restore() {
      std::cout.flush();
      std::cout.rdbuf(saved);
    }
  } restore{std::cout.rdbuf(&out)};
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    // `fakeprop --help` also lists the options of the default command, which `fakeprop MODEL` takes.
    if (!infer_app->parsed() && !check_app->parsed() && !plan_app->parsed()) {
      std::cout << app.help() << "\nfakeprop MODEL [OPTIONS] runs the default command, infer:\n\n" << infer_app->help();
      return flushed(0, out);
    }
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  }
  try {
    if (infer_app->parsed()) return flushed(run_infer(infer), out);
    if (check_app->parsed()) return flushed(run_check(check), out);
    if (plan_app->parsed()) return flushed(run_plan(plan), out);
    std::cout << app.help();
    return 2;
  } catch (const InputError& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "fakeprop: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fakeprop: error: internal: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace fakeprop::cli
