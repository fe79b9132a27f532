#!/usr/bin/env python3
"""Including gca instantiates none of its function templates (docs/ENGINE.md, "Instantiated where used").

The bodies of gca's functions are templates so that a file instantiates them, and the standard library's
templates they name, only where it calls them. A plain inline function that calls one undoes that for
every file that includes its header: compilers instantiate what a plain function's body uses, whether
the function is ever called or not. scripts/check-deferred.py checks the headers' text for long plain
functions; this asks the compiler. It compiles a file that includes every header with
-fkeep-inline-functions (every plain inline function is emitted, so whatever its body instantiates is
emitted too) and lists the instantiations of gca's own templates in the object.

Usage: scripts/check-instantiations.py CXX INCLUDE_DIR. Prints each instantiation, exits 1 if any.
-fkeep-inline-functions is g++'s: with clang as CXX the check uses g++ from PATH, and is skipped (exit
77, meson's "skipped") when there is none.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Instantiated by plain functions on purpose, each with its reason.
ALLOWED = {
    # The watchdog's thread-local state: a four-line accessor that names no standard template, read by
    # watchdog_scope's constructor and destructor (a destructor cannot be a template).
    "gca::detail::watchdog<void>",
    # Boost.Graph's edge iterator's step (graph/bgl.hpp): a loop over two spans, no standard template,
    # called by the iterator's constructor and operator++.
    "gca::bgl::arc_iterator::settle<void>",
}


def main():
    cxx, root = sys.argv[1], sys.argv[2]
    if "clang" in subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout:
        cxx = shutil.which("g++")
        if cxx is None:
            print("check-instantiations: skipped (needs g++ for -fkeep-inline-functions)")
            return 77
    # Every header but gca/compiled.hpp, whose `extern template` list would keep the drivers' instantiations
    # out of the object even where a plain function asked for them.
    headers = []
    for d, _, files in sorted(os.walk(os.path.join(root, "gca"))):
        headers += [os.path.relpath(os.path.join(d, f), root) for f in sorted(files) if f.endswith(".hpp")]
    headers = [h for h in headers if h != os.path.join("gca", "compiled.hpp")]
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "all.cpp"), os.path.join(tmp, "all.o")
        with open(src, "w") as f:
            f.write("".join(f"#include <{h}>\n" for h in headers))
        subprocess.run([cxx, "-std=c++20", "-O0", "-fkeep-inline-functions", "-I", root, "-c", src, "-o", obj],
                       check=True)
        syms = subprocess.run(["nm", "-C", "--defined-only", obj], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in syms.splitlines():
        for m in re.finditer(r"gca::[\w:]*\w<(?:void)?>", line):
            if m.group(0) not in ALLOWED:
                found.add(m.group(0))
    for name in sorted(found):
        print(f"{name} is instantiated by a plain function of a header; make its caller a template "
              "(docs/ENGINE.md, \"Instantiated where used\")")
    print(f"check-instantiations: {len(found)} template(s) of gca instantiated by including the headers")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
