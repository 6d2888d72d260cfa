import Dispatch
import Glibc

/// How a program's entry point in `libCofferCommands.so` runs its root command, which the thin
/// executable calls for everything it does not answer itself (docs/performance.md, "The thin
/// front programs").
package enum LibraryEntryPoint {
    /// Runs `main` on the main actor, as an `@main` program does, then exits with status 0 (the
    /// command exits by itself for any other status).
    package static func run(_ main: @escaping @MainActor @Sendable () async -> Void) -> Never {
        Task { @MainActor in
            await main()
            exit(0)
        }
        dispatchMain()
    }
}
