import Foundation

/// Replays saved inputs through targets: the committed corpus as a regression run, or a
/// crash file libFuzzer wrote.
enum Replay {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs every file in `paths` (files, or folders of files) through `target`; returns how many.
    static func inputs(_ paths: some Sequence<String>, through target: FuzzTarget) throws -> Int {
        var count = 0
        for path in paths {
            for file in try files(at: path) {
                target.run(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))))
                count += 1
            }
        }
        return count
    }

    /// Runs `root/<target>/` through each target; every target must have inputs there.
    static func corpus(at root: String) throws {
        var total = 0
        for target in FuzzTarget.all {
            let count = try inputs(["\(root)/\(target.name)"], through: target)
            guard count > 0 else { throw Failure(description: "\(root)/\(target.name) has no inputs") }
            total += count
        }
        print("coffer-fuzz: \(total) inputs through \(FuzzTarget.all.count) targets, no crash")
    }

    /// The path itself, or a folder's visible files in name order.
    private static func files(at path: String) throws -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw Failure(description: "\(path): no such file or folder")
        }
        guard isFolder.boolValue else { return [path] }
        return try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { !$0.hasPrefix(".") }.sorted().map { "\(path)/\($0)" }
    }
}
