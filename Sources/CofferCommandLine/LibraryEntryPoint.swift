import CofferThinClient
import Dispatch
import Glibc

/// How a program's entry point in `libCofferCommands.so` runs its root command, which the thin
/// executable calls for everything it does not answer itself (docs/performance.md, "The thin
/// front programs").
package enum LibraryEntryPoint {
    /// Records the standard descriptors the thin program found closed (`closedMask`, held on
    /// /dev/null since: dispatch's own descriptors could take their numbers otherwise), runs
    /// `main` on the main actor, as an `@main` program does, then exits with status 0 (the
    /// command exits by itself for any other status).
    package static func run(closedMask: Int32, _ main: @escaping @MainActor @Sendable () async -> Void) -> Never {
        StandardStreams.recordClosedAtStart(StandardDescriptors.descriptors(in: closedMask))
        Task { @MainActor in
            await main()
            exit(0)
        }
        dispatchMain()
    }
}
