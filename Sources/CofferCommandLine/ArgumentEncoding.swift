import Glibc

/// Refuses command-line arguments and environment variables that are not valid UTF-8.
///
/// Swift replaces invalid bytes with U+FFFD when it makes a `String`, so `svc\xff` and
/// `svc\xfe` would both become `svc\u{fffd}`: two inputs, one item or one key. Coffer refuses
/// such input instead, before anything else runs.
package enum ArgumentEncoding {
    /// The environment variables Coffer reads (besides its own `COFFER_*`).
    private static let readVariables: Set<String> = ["HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_DISPLAY"]

    package static func check() throws(CLIError) {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) != nil else {
                throw .usage("argument \(index) is not valid UTF-8")
            }
        }
        var entry = environ
        while let variable = entry.pointee {
            defer { entry += 1 }
            guard let equals = strchr(variable, Int32(UInt8(ascii: "="))) else { continue }
            let nameLength = equals - variable
            let name = String(decoding: UnsafeRawBufferPointer(start: variable, count: nameLength), as: UTF8.self)
            guard name.hasPrefix("COFFER_") || readVariables.contains(name) else { continue }
            guard String(validatingCString: variable) != nil else { throw .usage("$\(name) is not valid UTF-8") }
        }
    }
}
