import CofferTestSupport
import Foundation
import XCTest

/// The package's target graph, as `swift package dump-package` describes it: the dev backend
/// shares no code with CofferAuth, the client it serves, so that a mistake in the client's
/// forms, headers, JSON or signatures cannot be mirrored by the server and go unseen.
final class PackageGraphTests: XCTestCase {
    /// CofferDevBackend depends on CofferAuth neither directly nor through any other target of
    /// the package (the `coffer-dev-backend` executable may link both).
    func testTheDevBackendDoesNotDependOnTheClient() throws {
        let graph = try TargetGraph.dumped()
        XCTAssertNotNil(graph.dependencies["CofferDevBackend"], "the dump names no CofferDevBackend target")
        XCTAssertNotNil(graph.dependencies["CofferAuth"], "the dump names no CofferAuth target")
        if let path = graph.path(from: "CofferDevBackend", to: "CofferAuth") {
            XCTFail("CofferDevBackend depends on CofferAuth: \(path.joined(separator: " → "))")
        }
    }

    /// An app that depends on Coffer with `traits: ["Auth"]` alone (scripts/consumer-check.sh
    /// resolves one) can compile CofferAuth: neither it nor any target of the package it depends
    /// on takes a dependency only under another trait (`Tools`), which such an app lacks.
    func testCofferAuthNeedsNothingTheAuthTraitAloneLeavesOut() throws {
        let graph = try TargetGraph.dumped()
        let needed = graph.closure(from: "CofferAuth")
        XCTAssertTrue(needed.isSuperset(of: ["CofferAuth", "Coffer"]), "\(needed)")
        for target in needed.sorted() {
            for (dependency, traits) in graph.traitConditions[target] ?? [:] where !traits.contains("Auth") {
                XCTFail("\(target) depends on \(dependency) only with the traits \(traits)")
            }
        }
    }

    /// The walk finds a dependency through other targets, whatever kind names it (by name,
    /// `.target`, or with a condition), and ignores other packages' products.
    func testTheWalkFindsIndirectDependencies() throws {
        let dump = #"""
            {"targets": [
              {"name": "Server", "dependencies": [{"byName": ["Shared", null]}, {"product": ["Client", "other-package", null, null]},
                {"product": ["Tool", "tools", null, {"platformNames": [], "traits": ["Tools"]}]}]},
              {"name": "Shared", "dependencies": [{"target": ["Plumbing", {"platformNames": ["linux"]}]}]},
              {"name": "Plumbing", "dependencies": [{"byName": ["Client", null]}]},
              {"name": "Client", "dependencies": []},
              {"name": "Alone", "dependencies": [{"product": ["Client", "other-package", null, null]}]}
            ]}
            """#
        let graph = try TargetGraph(dump: Data(dump.utf8))
        XCTAssertEqual(graph.path(from: "Server", to: "Client"), ["Server", "Shared", "Plumbing", "Client"])
        XCTAssertNil(graph.path(from: "Alone", to: "Client"), "another package's product of the same name is not the target")
        XCTAssertNil(graph.path(from: "Client", to: "Server"))
        XCTAssertEqual(graph.closure(from: "Shared"), ["Shared", "Plumbing", "Client"])
        XCTAssertEqual(graph.traitConditions["Server"], ["Tool": ["Tools"]])
        XCTAssertNil(graph.traitConditions["Shared"], "a condition on platforms alone names no trait")
    }
}

/// Which targets of the package each target depends on, from `swift package dump-package`.
struct TargetGraph {
    /// Each target's dependencies on targets of this package (by name or `.target`; products
    /// of other packages are left out).
    let dependencies: [String: [String]]
    /// For each target, the dependencies (targets or products) it takes only with some traits
    /// enabled, and those traits.
    let traitConditions: [String: [String: [String]]]

    private struct Dump: Decodable {
        struct Target: Decodable {
            let name: String
            let dependencies: [Dependency]
        }

        /// `{"byName": [name, condition]}`, `{"target": [name, condition]}` or
        /// `{"product": [name, package, aliases, condition]}`.
        struct Dependency: Decodable {
            /// The target's or the product's name.
            let name: String
            let isProduct: Bool
            /// The traits its condition names; `nil` when it has none.
            let traits: [String]?

            var target: String? { isProduct ? nil : name }

            private enum Kind: String, CodingKey {
                case byName, target, product
            }

            private struct Condition: Decodable {
                let traits: [String]?
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Kind.self)
                guard let kind = container.allKeys.first else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an unknown dependency"))
                }
                var fields = try container.nestedUnkeyedContainer(forKey: kind)
                name = try fields.decode(String.self)
                isProduct = kind == .product
                if isProduct {
                    _ = try fields.decode(String.self)  // the package
                    if try !fields.decodeNil() { _ = try fields.decode([String: String].self) }  // module aliases
                }
                traits = try fields.decodeNil() ? nil : try fields.decode(Condition.self).traits.flatMap { $0.isEmpty ? nil : $0 }
            }
        }

        let targets: [Target]
    }

    init(dump: Data) throws {
        let targets = try JSONDecoder().decode(Dump.self, from: dump).targets
        let names = Set(targets.map(\.name))
        // A name that is no target of this package is a product of a dependency.
        dependencies = Dictionary(targets.map { ($0.name, $0.dependencies.compactMap(\.target).filter(names.contains)) }) { first, _ in first }
        traitConditions = Dictionary(targets.compactMap { target in
            let conditioned = target.dependencies.compactMap { dependency in dependency.traits.map { (dependency.name, $0) } }
            return conditioned.isEmpty ? nil : (target.name, Dictionary(conditioned) { first, _ in first })
        }) { first, _ in first }
    }

    /// `start` and every target of the package it depends on, directly or through others.
    func closure(from start: String) -> Set<String> {
        var found: Set<String> = [start]
        var pending = [start]
        while let target = pending.popLast() {
            for next in dependencies[target] ?? [] where found.insert(next).inserted { pending.append(next) }
        }
        return found
    }

    /// The package's own graph, dumped with a scratch folder of its own (`swift test` holds the
    /// lock of `.build`). SwiftPM keeps that folder's lock file in `$TMPDIR`, so the folder is
    /// its `TMPDIR` too: nothing is left behind when the test ends.
    static func dumped() throws -> TargetGraph {
        let scratch = TemporaryFolder()
        let output: ChildProcess.Output
        do {
            output = try ChildProcess.run(
                "swift", ["package", "--package-path", packageRoot.path, "--scratch-path", scratch.file("build").path, "dump-package"],
                environment: ["TMPDIR": scratch.url.path], timeout: .seconds(180))
        } catch let error as POSIXError where error.code == .ENOENT {
            throw MissingPrerequisite.error("swift is not on PATH: the package graph cannot be dumped")
        }
        guard output.status == 0 else { throw DumpFailure(status: output.status, stderr: output.stderrText) }
        return try TargetGraph(dump: output.stdout)
    }

    /// `swift package dump-package` failed.
    struct DumpFailure: Error, CustomStringConvertible {
        let status: Int32
        let stderr: String
        var description: String { "swift package dump-package exited with \(status): \(stderr)" }
    }

    /// The shortest chain of dependencies from `start` to `goal`, both included; `nil` when
    /// `start` does not depend on `goal`.
    func path(from start: String, to goal: String) -> [String]? {
        var previous: [String: String] = [start: start]
        var queue = [start]
        while !queue.isEmpty {
            let target = queue.removeFirst()
            if target == goal {
                var path = [goal]
                while let last = path.last, last != start, let before = previous[last] { path.append(before) }
                return path.reversed()
            }
            for next in dependencies[target] ?? [] where previous[next] == nil {
                previous[next] = target
                queue.append(next)
            }
        }
        return nil
    }
}
