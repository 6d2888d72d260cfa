import CofferCommandLine

/// The `coffer` command's entry point in `libCofferCommands.so` (``LibraryEntryPoint``).
@_cdecl("coffer_full_command")
public func cofferMain(closedStandardStreams: Int32) {
    LibraryEntryPoint.run(closedMask: closedStandardStreams) { CofferCommand.runFromLibrary() }
}
