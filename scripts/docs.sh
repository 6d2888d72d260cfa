#!/usr/bin/env bash
# make docs: builds the DocC documentation of every library, failing on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
# The DocC plugin is a dependency only for this (Package.swift reads COFFER_DOCS).
export COFFER_DOCS=1

mkdir -p .build/docs
for target in Coffer CofferConformance CofferAuth CofferDevBackend; do
    echo "docs: $target"
    swift package --allow-writing-to-directory .build/docs generate-documentation \
        --target "$target" --warnings-as-errors --output-path ".build/docs/$target.doccarchive" 2>&1 \
        | tee ".build/docs/$target.log" | grep -v "^\[" || true
    # SwiftPM's own notes about the build (pkg-config's -pthread for libsecret, a dependency's
    # stray CMakeLists.txt) are not about the documentation.
    grep -vE "prohibited flag\(s\)|which are unhandled; explicitly declare them" ".build/docs/$target.log" \
        | grep -qE "warning:|error:" && { echo "docs: $target has warnings (above)" >&2; exit 1; }
done
echo "docs: every library built with no warnings; archives in .build/docs"
