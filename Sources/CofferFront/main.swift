import CofferThinClient

ThinProgram.run(full: FullProgram(entryPoint: "coffer_full_command", name: "coffer"), fastPath: CofferFastPath.answer)
