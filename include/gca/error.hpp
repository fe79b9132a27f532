// gca/error.hpp — how gca reports failure.
//
// The one decision (STYLE.md item 23): malformed input and API misuse are exceptions, all deriving from
// std::invalid_argument so a caller can catch them together; an allocation that cannot succeed is not
// malformed input, it is a value (see the engine's result types) — except at the top-level drivers,
// which turn it into `allocation_error` so a pipeline stops with the Neuron allocator's message.
//   parse_error      text input: carries file, line, column; what() is "FILE:LINE:COL: error: MESSAGE"
//                    ("FILE: error: MESSAGE" when no line applies: a file that cannot be read)
//   input_error      API input: what() names the tensor, function or pass at fault
//   allocation_error spilling can't help (exit status 3 in the tools)
//   timeout_error    the wall-clock watchdog fired: "GCA is taking too long" (exit status 2)
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace gca {

/// Where in a text input something is. Line and column are 1-based; 0 means unknown.
struct source_loc {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

class parse_error : public std::invalid_argument {
 public:
  template <class = void>
  parse_error(std::string file, source_loc loc, std::string message)
      : std::invalid_argument(format(file, loc, message)),
        file_(std::move(file)),
        loc_(loc),
        message_(std::move(message)) {}
  const std::string& file() const noexcept { return file_; }
  std::uint32_t line() const noexcept { return loc_.line; }
  std::uint32_t column() const noexcept { return loc_.column; }
  /// The message without the location prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  template <class = void>
  static std::string format(const std::string& file, source_loc loc, const std::string& message) {
    std::string s = file;  // "FILE: error: ..." when the file as a whole is at fault (line 0)
    if (loc.line != 0) s += ':' + std::to_string(loc.line);
    if (loc.line != 0 && loc.column != 0) s += ':' + std::to_string(loc.column);
    return s + ": error: " + message;
  }
  std::string file_;
  source_loc loc_;
  std::string message_;
};

class input_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class allocation_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class timeout_error : public std::runtime_error {
 public:
  timeout_error() : std::runtime_error("GCA is taking too long") {}
};

}  // namespace gca
