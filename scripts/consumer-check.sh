#!/usr/bin/env bash
# Two packages that depend on this checkout as an app would, made from scratch:
#   store  uses only the Coffer product, with traits: []: it must resolve no other package, and
#          it is built (cold, in its own scratch folder): the store alone compiles for a consumer;
#   auth   uses CofferAuth, with traits: ["Auth"]: Coffer's own dependencies must be only those
#          CofferAuth needs, and nothing of the tools or the dev backend may be resolved at all
#          (Hummingbird, hummingbird-auth, swift-argument-parser, the DocC plugin).
# The auth consumer is resolved, not built: which packages a consumer gets is what SwiftPM's
# resolution decides (`swift package show-dependencies`), and a cold build of SwiftNIO and
# AsyncHTTPClient (9 of make test's minutes) would only repeat what `swift build` compiled. What a
# build would add, that CofferAuth compiles with the Auth trait alone, is a test of the manifest:
# PackageGraphTests.testCofferAuthNeedsNothingTheAuthTraitAloneLeavesOut.
# Prints the packages each resolved. `make test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/.build-consumers"

# consumer NAME TRAITS PRODUCT SOURCE BUILD: makes the consumer and resolves its packages
# (show-dependencies resolves them first); builds it too when BUILD is "build". NAME/graph.json
# is its dependency graph.
consumer() {
    local name=$1 traits=$2 product=$3 source=$4 build=$5
    local folder="$work/$name"
    rm -rf "$folder"
    mkdir -p "$folder/Sources/App"
    cat > "$folder/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(path: "$root", traits: [$traits])],
    targets: [.executableTarget(name: "App", dependencies: [.product(name: "$product", package: "$(basename "$root")")])]
)
MANIFEST
    printf '%s\n' "$source" > "$folder/Sources/App/main.swift"
    local started=$SECONDS
    if ! (cd "$folder" && swift package --scratch-path "$folder/.build" show-dependencies --format json \
            >"$folder/graph.json" 2>"$folder/resolve.log"); then
        cat "$folder/resolve.log" >&2
        echo "consumer-check: the $name consumer does not resolve" >&2
        exit 1
    fi
    echo "consumer-check: $name (traits: [$traits], product $product): resolved in $((SECONDS - started)) s"
    [ "$build" = build ] || return 0
    started=$SECONDS
    if ! (cd "$folder" && swift build --scratch-path "$folder/.build" >"$folder/build.log" 2>&1); then
        cat "$folder/build.log" >&2
        echo "consumer-check: the $name consumer does not build" >&2
        exit 1
    fi
    echo "consumer-check: $name: cold debug build $((SECONDS - started)) s"
}

consumer store "" Coffer 'import Coffer
print(Limits.maxSecretBytes)' build
consumer auth '"Auth"' CofferAuth 'import CofferAuth
print(ClientConfiguration().requestTimeout)' resolve

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]

def graph(name):
    with open(f"{work}/{name}/graph.json") as f:
        coffer = json.load(f)["dependencies"][0]
    everything = set()
    def walk(node):
        for child in node["dependencies"]:
            everything.add(child["identity"])
            walk(child)
    walk(coffer)
    return sorted(child["identity"] for child in coffer["dependencies"]), sorted(everything)

failed = False
direct, everything = graph("store")
print(f"consumer-check: store resolved {len(everything)} other packages: {', '.join(everything) or 'none'}")
if everything:
    print("consumer-check: a consumer of the Coffer product alone must resolve no other package", file=sys.stderr)
    failed = True

direct, everything = graph("auth")
print(f"consumer-check: auth: Coffer's own dependencies: {', '.join(direct)}")
print(f"consumer-check: auth resolved {len(everything)} packages in all: {', '.join(everything)}")
needed = {"async-http-client", "swift-crypto", "jwt-kit", "swift-log", "swift-nio", "swift-certificates"}
if set(direct) - needed:
    print(f"consumer-check: CofferAuth's consumer got Coffer dependencies it does not need: {sorted(set(direct) - needed)}", file=sys.stderr)
    failed = True
tools = {"hummingbird", "hummingbird-auth", "swift-argument-parser", "swift-docc-plugin"}
if tools & set(everything):
    print(f"consumer-check: CofferAuth's consumer resolved the tools' packages: {sorted(tools & set(everything))}", file=sys.stderr)
    failed = True

sys.exit(1 if failed else 0)
PY
echo "consumer-check: ok"
