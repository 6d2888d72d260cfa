#!/usr/bin/env bash
# The fault campaign (the Python package scripts/torture/: each module in sections/ says what it checks):
# builds the CLI, then runs the campaign against it. It prints its seed first.
#   scripts/torture.sh                          the full campaign (`make torture`), 15-30 minutes
#   scripts/torture.sh --profile bounded        the bounded run `make test` does, under 5 minutes
#   scripts/torture.sh --seed N --only corruption --verbose     replay a run, or one section of it
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/leftovers.sh

scripts/bootstrap.sh test
swift build --product coffer
swift build --product CofferCommands
swift build --product coffer-agent
swift build --product coffer-test-helper
exec python3 scripts/torture --coffer "$(swift build --show-bin-path)/coffer" "$@"
