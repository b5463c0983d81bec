// Errors are thrown once where they are detected and caught once at the
// command line (or per node by the interpreter, which records them).
#pragma once
#include <stdexcept>
#include <string>

#include "fakeprop/util/error_kind.h"

namespace fakeprop {

// Base of everything fakeprop throws on purpose.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Unreadable or invalid user input (exit code 2).
class InputError : public Error {
 public:
  using Error::Error;
};

// A 64-bit integer computation on sizes overflowed.
class OverflowError : public Error {
 public:
  using Error::Error;
};

// An operator could not be evaluated on its inputs (shape mismatch, bad
// attribute, ...). Recorded on the node; propagation continues.
class OpError : public Error {
 public:
  OpError(ErrorKind kind, const std::string& what) : Error(what), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace fakeprop
