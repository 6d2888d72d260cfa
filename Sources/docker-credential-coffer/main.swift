import CofferThinClient

// docker-credential-coffer: `get` through the agent here (ThinHelperGet); everything else, and
// what the agent does not answer (no credentials, say), by the full helper in libCofferCommands.so.
ThinProgram.run(full: FullProgram(entryPoint: "coffer_full_docker_credential", name: "docker-credential-coffer")) { arguments in
    // More than the full helper reads (1 MiB), to the end of input.
    ThinHelperGet.answer(arguments, helper: .docker, inputLimit: (1 << 20) + 1)
}
