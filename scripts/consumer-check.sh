#!/usr/bin/env bash
# Builds, from scratch, two packages that depend on this checkout as an app would:
#   store  uses only the Coffer product, with traits: []: it must resolve no other package;
#   auth   uses CofferAuth, with traits: ["Auth"]: Coffer's own dependencies must be only those
#          CofferAuth needs, and nothing of the tools or the dev backend may be resolved at all
#          (Hummingbird, hummingbird-auth, swift-argument-parser, the DocC plugin).
# Prints the packages each resolved and how long its cold debug build took. `make test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/.build-consumers"

# consumer NAME TRAITS PRODUCT SOURCE: builds the consumer; NAME/graph.json is its dependency graph.
consumer() {
    local name=$1 traits=$2 product=$3 source=$4
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
    if ! (cd "$folder" && swift build --scratch-path "$folder/.build" >"$folder/build.log" 2>&1); then
        cat "$folder/build.log" >&2
        echo "consumer-check: the $name consumer does not build" >&2
        exit 1
    fi
    echo "consumer-check: $name (traits: [$traits], product $product): cold debug build $((SECONDS - started)) s"
    (cd "$folder" && swift package --scratch-path "$folder/.build" show-dependencies --format json) > "$folder/graph.json"
}

consumer store "" Coffer 'import Coffer
print(Limits.maxSecretBytes)'
consumer auth '"Auth"' CofferAuth 'import CofferAuth
print(ClientConfiguration().requestTimeout)'

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
