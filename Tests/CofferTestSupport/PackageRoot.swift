import Foundation

/// The package's root folder, for tests that read the scripts and files shipped beside the code.
public let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
