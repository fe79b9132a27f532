#!/bin/sh
# expect-exit.sh CODE TEXT COMMAND...: runs COMMAND, passes when it exits with CODE and its stderr
# contains TEXT (an empty TEXT matches anything).
code=$1; text=$2; shift 2
err=$("$@" 2>&1 >/dev/null); rc=$?
if [ "$rc" != "$code" ]; then echo "exit status $rc, expected $code: $err"; exit 1; fi
case "$err" in *"$text"*) exit 0 ;; esac
echo "stderr lacks '$text': $err"; exit 1
