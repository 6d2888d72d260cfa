import CofferThinClient

/// How a program's entry point in `libCofferCommands.so` runs its root command, which the thin
/// executable calls for everything it does not answer itself (docs/performance.md, "The thin
/// front programs").
package enum LibraryEntryPoint {
    /// Records the standard descriptors the thin program found closed (`closedMask`, held on
    /// /dev/null since) and runs `main` (``CommandLineTool/runToExit(_:onFailure:)``) on this
    /// thread, the main thread, as the main actor.
    package static func run(closedMask: Int32, _ main: @MainActor () -> Never) -> Never {
        StandardStreams.recordClosedAtStart(StandardDescriptors.descriptors(in: closedMask))
        MainActor.assumeIsolated { main() }
    }
}
