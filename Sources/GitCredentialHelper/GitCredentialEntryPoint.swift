import CofferCommandLine

/// git-credential-coffer's entry point in `libCofferCommands.so` (``LibraryEntryPoint``).
@_cdecl("coffer_full_git_credential")
public func gitCredentialCofferMain(closedStandardStreams: Int32) {
    LibraryEntryPoint.run(closedMask: closedStandardStreams) { GitCredentialCommand.runFromLibrary() }
}
