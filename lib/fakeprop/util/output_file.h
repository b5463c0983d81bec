// The one way fakeprop writes a file the user named (--report, -o, --html,
// a `check` baseline, the package's output= and html=). What stands at the
// target decides how:
// - nothing, or a regular file: the text goes to a new temporary file in the
//   target's directory (a unique name, created with O_EXCL | O_NOFOLLOW) that
//   is synced and renamed over the target by commit(); a failure leaves the
//   target as it was and removes the temporary;
// - a symbolic link: resolved, and its final file replaced in that file's own
//   directory (the link stays a link); a link to nothing is refused;
// - a character device or a pipe (/dev/null, /dev/stdout, `-` for standard
//   output): written in place, never replaced;
// - anything else (a directory, a block device, a socket) is refused;
// - any input of the run (the model, its external data, a rules or real-input
//   file, compared by device and inode, so links and hard links count) is
//   refused.
// Every failure (a short write, ENOSPC, a failed fsync or close) is an
// InputError "<path>: ..." (exit 2).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fakeprop/util/input_file.h"

namespace fakeprop {

// A file that no output may replace, and what it is to the run ("the input
// model", "external data of the model", ...), for the message.
struct ProtectedFile {
  std::string path;
  std::string role;
};

// How a target path is written: decided from what stands there now.
struct OutputTarget {
  enum class Kind { Replace, InPlace, StandardOutput };
  Kind kind = Kind::Replace;
  std::string final_path;  // symbolic links resolved (Replace, InPlace)
  std::optional<unsigned> mode;  // an existing file's permission bits, kept
};

// The decision alone (no file is opened for writing): throws InputError for
// a refused target. `inputs` are the run's input files.
OutputTarget resolve_output_target(const std::string& path, std::span<const ProtectedFile> inputs);

class OutputFile {
 public:
  OutputFile(const std::string& path, std::span<const ProtectedFile> inputs);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Without a commit the temporary is removed and the target is untouched.
  ~OutputFile();

  void write(std::string_view bytes);
  void commit();

 private:
  void fail(int error);

  std::string path_;  // as the user named it, for messages
  OutputTarget target_;
  std::string temporary_;  // Replace only
  int fd_ = -1;
  bool committed_ = false;
};

// `content` written through an OutputFile.
void write_output_file(const std::string& path, std::string_view content, std::span<const ProtectedFile> inputs);

}  // namespace fakeprop
