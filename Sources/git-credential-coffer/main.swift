import CofferThinClient

ThinProgram.run(full: FullProgram(entryPoint: "coffer_full_git_credential", name: "git-credential-coffer")) { _ in nil }
