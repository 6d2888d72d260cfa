import CofferAgentWire
import CofferThinClient

// git-credential-coffer: `get` through the agent here (ThinHelperGet), reading up to the
// request's blank line and never more than the full helper accepts plus one byte;
// everything else, and what the agent does not answer, by the full helper in libCofferCommands.so.
ThinProgram.run(full: FullProgram(entryPoint: "coffer_full_git_credential", name: "git-credential-coffer")) { arguments in
    ThinHelperGet.answer(arguments, helper: .git, inputLimit: GitRequestEnd.thinReadLimit, until: GitRequestEnd().isRead)
}
