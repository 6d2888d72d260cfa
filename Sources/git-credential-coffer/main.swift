import CofferAgentWire
import CofferThinClient

// git-credential-coffer: `get` through the agent here (ThinHelperGet), reading up to the
// request's blank line and never more than the full helper accepts (1 MiB) plus one byte;
// everything else, and what the agent does not answer, by the full helper in libCofferCommands.so.
ThinProgram.run(full: FullProgram(entryPoint: "coffer_full_git_credential", name: "git-credential-coffer")) { arguments in
    ThinHelperGet.answer(arguments, helper: .git, inputLimit: (1 << 20) + 1, until: GitRequestEnd().isRead)
}
