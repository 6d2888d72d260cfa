import Glibc

/// The full program behind a thin front program: the library `libCofferCommands.so` beside the
/// executable, loaded into this process only when needed, so that the process stays the same
/// program for the agent's access rules (its executable is still this one).
package struct FullProgram: Sendable {
    /// The library's entry point for this program: a `@_cdecl` function that takes the mask of
    /// the standard descriptors found closed (``StandardDescriptors/mask(_:)``) and never returns.
    package let entryPoint: String
    /// The program's name in its error messages.
    package let name: String

    package init(entryPoint: String, name: String) {
        self.entryPoint = entryPoint
        self.name = name
    }

    /// The library's file name, beside the executable.
    package static let libraryName = "libCofferCommands.so"

    /// Loads the library and runs the entry point; a library that cannot be loaded ends the
    /// process with status 70 (`ExitStatus.software`) and the loader's reason.
    package func run(closedStandardStreams closed: Set<Int32>) -> Never {
        guard let folder = Self.executableFolder() else { fail("cannot find its own executable (/proc/self/exe)") }
        guard let library = dlopen(folder + "/" + Self.libraryName, RTLD_NOW | RTLD_LOCAL) else {
            fail("cannot load \(Self.libraryName): \(dlerror().map { String(cString: $0) } ?? "unknown reason")")
        }
        guard let symbol = dlsym(library, entryPoint) else { fail("\(Self.libraryName) has no \(entryPoint)") }
        let main = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
        main(StandardDescriptors.mask(closed))
        fail("\(entryPoint) returned")
    }

    private static func executableFolder() -> String? {
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(resolved) }
        let path = String(cString: resolved)
        return path.lastIndex(of: "/").map { String(path[..<$0]) }
    }

    private func fail(_ reason: String) -> Never {
        let line = Array("\(name): \(reason)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress!, line.count) }
        exit(70)
    }
}
