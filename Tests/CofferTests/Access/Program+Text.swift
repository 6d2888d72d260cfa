@testable import Coffer

/// The store tests name programs by text paths: a program built from them, which must be valid
/// (a test that wants a refusal calls ``Program/init(executablePath:executableDigest:executablePinned:script:scriptDigest:scriptPinned:sandboxApp:systemdUnit:)``).
extension Program {
    init(
        executable: String, executableDigest: [UInt8]? = nil, executablePinned: Bool = false, script: String? = nil,
        scriptDigest: [UInt8]? = nil, scriptPinned: Bool = false, sandboxApp: String? = nil, unit: String? = nil
    ) {
        self = try! Program(
            executablePath: Array(executable.utf8), executableDigest: executableDigest, executablePinned: executablePinned,
            script: script.map { Array($0.utf8) }, scriptDigest: scriptDigest, scriptPinned: scriptPinned,
            sandboxApp: sandboxApp, systemdUnit: unit)
    }

    /// The executable's path as text.
    var executable: String { String(decoding: executablePath, as: UTF8.self) }
    /// The systemd unit, as the tests name it.
    var unit: String? { systemdUnit }
}

/// Programs the store tests share.
enum SamplePrograms {
    static let digest = [UInt8](repeating: 0xAB, count: 32)
    static let other = [UInt8](repeating: 0xCD, count: 32)

    /// A program with every field.
    static let full = Program(
        executable: "/usr/bin/python3.11", executableDigest: digest, executablePinned: false,
        script: "/home/ada/bin/sync.py", scriptDigest: other, scriptPinned: true,
        sandboxApp: "flatpak:org.example.App", unit: "sync.service")
}
