import CofferThinClient

ThinProgram.run(full: FullProgram(entryPoint: "coffer_full_docker_credential", name: "docker-credential-coffer")) { _ in nil }
