import CofferCommandLine

/// docker-credential-coffer's entry point in `libCofferCommands.so` (``LibraryEntryPoint``).
@_cdecl("coffer_full_docker_credential")
public func dockerCredentialCofferMain(closedStandardStreams: Int32) {
    LibraryEntryPoint.run(closedMask: closedStandardStreams) { DockerCredentialCommand.runFromLibrary() }
}
