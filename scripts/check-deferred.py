#!/usr/bin/env python3
"""The headers' compile-time rule (docs/ENGINE.md, "Instantiated where used"), checked.

A plain inline function's body makes every file that includes its header instantiate the standard
library's templates it names; a template's body does so only where it is instantiated. So a header's
function of four lines or more at namespace scope, and a member function of five lines or more of a
class that is not a template, must be a template (`template <class = void>` when it has no parameter of
its own; a signature may run over several lines, a member may be ref-qualified). Shorter
functions, constexpr functions, constructors, destructors and operators are exempt.

Usage: scripts/check-deferred.py INCLUDE_DIR. Prints each plain function that breaks the rule as
FILE:LINE: NAME (N lines), and exits 1 if there is any.
"""
import os
import re
import sys


def body_end(lines, i, close):
    """The index of the line closing the body opened on line i (a line matching `close`)."""
    if re.search(r"\}\s*$", lines[i]):
        return i
    j = i + 1
    while j < len(lines) and not re.match(close, lines[j]) and not re.match(r"^\}", lines[j]):
        j += 1
    return j


def check(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    found, cls = [], None
    for i, line in enumerate(lines):
        prev = lines[i - 1].strip() if i else ""
        m = re.match(r"^(class|struct) (\w+)\b[^;]*$", line)
        if m:  # a class at namespace scope: a template's members are templates already
            cls = None if prev.startswith("template") or prev.endswith(">") else m.group(2)
            continue
        if re.match(r"^\};", line):
            cls = None
        fn = re.match(r"^(\[\[nodiscard\]\] )?inline (?!constexpr)(?!const )(.*?)(\w+)\(", line)
        if fn and not line.rstrip().endswith(";") and not prev.startswith("template"):
            n = body_end(lines, i, r"^\}") - i + 1
            if n >= 4:
                found.append((i + 1, fn.group(3), n))
            continue
        k = i - 1  # back over a member template's requires-clause to its template head
        while k > 0 and (lines[k].startswith("    ") or lines[k].startswith("  requires")):
            k -= 1
        if lines[k].strip().startswith("template"):
            continue
        if not cls or not re.match(r"^  [^ /]", line) or prev.endswith(","):
            continue
        # The signature, over continuation lines (indented deeper) up to the line that opens the body.
        e, sig = i, line
        while not re.search(r"[{;]\s*$", lines[e]) and e + 1 < len(lines) and lines[e + 1].startswith("    ") and e < i + 4:
            e += 1
            sig += " " + lines[e].strip()
        if re.match(r"^  [^ /].*\)( const)?( ?&&| ?&)?( noexcept)?( override)? \{$", sig) \
                and not re.match(r"^  (if|for|while|switch|return|else|explicit|friend|virtual|constexpr|"
                                 r"static constexpr|template)", line) \
                and not re.match(r"^  ~?%s\(" % cls, line) and "operator" not in line \
                and not prev.startswith("template"):
            j = body_end(lines, e, r"^  \}")
            if j - i + 1 >= 5 and j < len(lines) and re.match(r"^  \}", lines[j]):
                found.append((i + 1, cls + "::" + re.sub(r"\(.*", "", line).split()[-1], j - i + 1))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "include"
    bad = 0
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if f.endswith(".hpp"):
                p = os.path.join(d, f)
                for line, name, n in check(p):
                    print(f"{p}:{line}: {name} ({n} lines) is a plain inline function; make it a template "
                          "(docs/ENGINE.md, \"Instantiated where used\")")
                    bad += 1
    print(f"check-deferred: {bad} plain function(s) of four lines or more")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
