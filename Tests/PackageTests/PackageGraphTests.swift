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

    /// The walk finds a dependency through other targets, whatever kind names it (by name,
    /// `.target`, or with a condition), and ignores other packages' products.
    func testTheWalkFindsIndirectDependencies() throws {
        let dump = #"""
            {"targets": [
              {"name": "Server", "dependencies": [{"byName": ["Shared", null]}, {"product": ["Client", "other-package", null, null]}]},
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
    }
}

/// Which targets of the package each target depends on, from `swift package dump-package`.
struct TargetGraph {
    /// Each target's dependencies on targets of this package (by name or `.target`; products
    /// of other packages are left out).
    let dependencies: [String: [String]]

    private struct Dump: Decodable {
        struct Target: Decodable {
            let name: String
            let dependencies: [Dependency]
        }

        /// `{"byName": [name, condition]}`, `{"target": [name, condition]}` or
        /// `{"product": [name, package, aliases, condition]}`.
        struct Dependency: Decodable {
            let target: String?

            private enum Kind: String, CodingKey {
                case byName, target, product
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Kind.self)
                guard let kind = container.allKeys.first, kind != .product else {
                    target = nil
                    return
                }
                var fields = try container.nestedUnkeyedContainer(forKey: kind)
                target = try fields.decode(String.self)
            }
        }

        let targets: [Target]
    }

    init(dump: Data) throws {
        let targets = try JSONDecoder().decode(Dump.self, from: dump).targets
        let names = Set(targets.map(\.name))
        // A name that is no target of this package is a product of a dependency.
        dependencies = Dictionary(targets.map { ($0.name, $0.dependencies.compactMap(\.target).filter(names.contains)) }) { first, _ in first }
    }

    /// The package's own graph, dumped with a scratch folder of its own (`swift test` holds the
    /// lock of `.build`).
    static func dumped() throws -> TargetGraph {
        let scratch = TemporaryFolder()
        let output: ChildProcess.Output
        do {
            output = try ChildProcess.run(
                "swift", ["package", "--package-path", packageRoot.path, "--scratch-path", scratch.url.path, "dump-package"],
                timeout: .seconds(180))
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
