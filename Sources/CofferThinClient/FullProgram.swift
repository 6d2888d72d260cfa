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

    /// Loads the library and runs the entry point. A library that cannot be found or loaded ends
    /// the process with status 69 (`ExitStatus.unavailable`) and why; nothing is looked for in
    /// the working folder.
    package func run(closedStandardStreams closed: Set<Int32>) -> Never {
        let folder: String
        switch ExecutableFolder.path() {
        case .success(let path): folder = path
        case .failure(let unknown):
            fail("cannot find the folder \(name) runs from (/proc/self/exe: \(unknown.reason)), where \(Self.libraryName) is")
        }
        guard let library = dlopen(folder + "/" + Self.libraryName, RTLD_LAZY | RTLD_LOCAL) else {
            fail("cannot load \(dlerror().map { String(cString: $0) } ?? folder + "/" + Self.libraryName) (it is installed beside \(name))")
        }
        guard let symbol = dlsym(library, entryPoint) else { fail("\(Self.libraryName) has no \(entryPoint)") }
        let main = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
        main(StandardDescriptors.mask(closed))
        fail("\(entryPoint) returned")
    }

    private func fail(_ reason: String) -> Never {
        ThinProgram.fail(reason, status: ThinAgent.unavailableStatus)
    }
}
