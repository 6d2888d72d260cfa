#!/usr/bin/env bash
# make docs: builds the DocC documentation of every library, failing on any warning.
# One run of the DocC plugin for the four targets: one build and one plugin start-up, where a run
# per target paid both four times.
set -euo pipefail
cd "$(dirname "$0")/.."
# The DocC plugin is a dependency only for this (Package.swift reads COFFER_DOCS).
export COFFER_DOCS=1
targets=(Coffer CofferConformance CofferAuth CofferDevBackend)

rm -rf .build/docs
mkdir -p .build/docs
echo "docs: ${targets[*]}"
swift package --allow-writing-to-directory .build/docs generate-documentation \
    $(printf -- '--target %s ' "${targets[@]}") --warnings-as-errors --output-path .build/docs 2>&1 \
    | tee .build/docs-build.log | grep -v "^\[" || true
# SwiftPM's own notes about the build (pkg-config's -pthread for libsecret, a dependency's
# stray CMakeLists.txt) are not about the documentation.
if grep -vE "prohibited flag\(s\)|which are unhandled; explicitly declare them" .build/docs-build.log | grep -qE "warning:|error:"; then
    echo "docs: the documentation has warnings (above)" >&2
    exit 1
fi
for target in "${targets[@]}"; do
    [ -d ".build/docs/$target.doccarchive" ] || { echo "docs: no archive for $target" >&2; exit 1; }
done
echo "docs: every library built with no warnings; archives in .build/docs"
