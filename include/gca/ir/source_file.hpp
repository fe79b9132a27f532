// gca/ir/source_file.hpp — reading a whole input file, with errors that say which file and what.
//
// Provides `read_source_file(path)`: the bytes of a regular file, or a parse_error "FILE: error: WHAT"
// (no line: the file as a whole is at fault) when it cannot be opened or read. Reading goes through
// istream::read, which turns a failing read (a directory opened as a file: EISDIR) into badbit instead
// of letting the stream buffer's ios_base::failure ("basic_filebuf::underflow ...") reach the user.
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include <gca/error.hpp>

namespace gca {

template <class = void>
std::string read_source_file(const std::string& path) {
  const auto why = [](const char* what) {
    const int e = errno;
    return e != 0 ? std::string(what) + ": " + std::strerror(e) : std::string(what);
  };
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw parse_error(path, {}, why("cannot open file"));
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) text.append(buf, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw parse_error(path, {}, why("cannot read file"));
  return text;
}

}  // namespace gca
