import Foundation

/// A C program the tests build with gcc against system libraries (named by their pkg-config
/// modules), once, into a `.build-NAME` folder at the package root (never committed). Rebuilt
/// when its source is newer than the binary.
public enum CProgram {
    public static func build(_ source: URL, named name: String, packages: [String]) throws -> URL {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw MissingPrerequisite.error("the C source \(source.path) is missing")
        }
        let folder = packageRoot.appendingPathComponent(".build-\(name)")
        let binary = folder.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: binary.path), !isNewer(source, than: binary) { return binary }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let flags = try ChildProcess.run("pkg-config", ["--cflags", "--libs"] + packages)
        guard flags.status == 0 else { throw MissingPrerequisite.error("pkg-config knows no \(packages.joined(separator: " ")): \(flags.stderrText)") }
        let temporary = folder.appendingPathComponent("\(name).\(getpid())")
        let compile = try ChildProcess.run(
            "gcc", ["-O2", "-o", temporary.path, source.path] + flags.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init),
            timeout: .seconds(120))
        guard compile.status == 0 else { throw MissingPrerequisite.error("cannot build \(name): \(compile.stderrText)") }
        _ = rename(temporary.path, binary.path)
        return binary
    }

    private static func isNewer(_ file: URL, than other: URL) -> Bool {
        func modified(_ url: URL) -> Date? { try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date }
        guard let first = modified(file), let second = modified(other) else { return true }
        return first > second
    }
}
