import Foundation

/// The programs this package builds, found beside the running test bundle.
public enum BuiltProducts {
    /// The folder of the test bundle, where `swift build` puts every product.
    public static let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

    /// The path of the built program `name`.
    public static func path(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }
}
