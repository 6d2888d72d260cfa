#!/usr/bin/env bash
# Fails when two tracked paths (files or folders) are equal when compared without case: on
# macOS's and Windows's default file systems they are one path, and a checkout there breaks.
set -euo pipefail
cd "$(dirname "$0")/.."
clashes=$(git ls-files | awk -F/ '{ path = ""; for (i = 1; i <= NF; i++) { path = (path == "" ? $i : path "/" $i); print path } }' \
    | sort -u | awk '{ key = tolower($0); if (key in seen) print seen[key] " and " $0; else seen[key] = $0 }')
if [ -n "$clashes" ]; then
    echo "case-check: these tracked paths differ only in case (one path on macOS and Windows):" >&2
    echo "$clashes" >&2
    exit 1
fi
echo "case-check: no two tracked paths differ only in case"
