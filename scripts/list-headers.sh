#!/bin/sh
# Lists every public header (relative to include/), sorted, for meson's header self-containment check.
cd "$(dirname "$0")/../include" && find gca -name '*.hpp' | LC_ALL=C sort
