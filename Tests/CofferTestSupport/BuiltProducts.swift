import Foundation

/// Executables built beside the test bundle (`coffer`, `coffer-test-helper`).
public enum BuiltProducts {
    /// The build folder that holds the running test binary.
    public static let folder: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }()

    /// The built program `name`.
    public static func executable(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}
