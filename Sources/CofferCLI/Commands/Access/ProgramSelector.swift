import ArgumentParser
import Coffer
import CofferCommandLine

/// PROGRAM and what else tells it apart (its script, sandbox and systemd service), as
/// `coffer access grant` and `revoke` take them: the parts of the identity the agent works out
/// for a caller (docs/security.md, "Which program is calling").
struct ProgramSelector: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "The program's executable, by absolute path; symbolic links are resolved, as the kernel names a running program.",
        valueName: "program"))
    var executable: String

    @Option(help: ArgumentHelp("The script the program (an interpreter) runs: an absolute path, module:NAME or class:NAME.", valueName: "script"))
    var script: String?

    @Option(help: ArgumentHelp("The Flatpak application the program runs in.", valueName: "app-id"))
    var flatpak: String?

    @Option(help: ArgumentHelp("The snap the program runs in.", valueName: "name"))
    var snap: String?

    @Option(help: ArgumentHelp("The systemd service the program runs in.", valueName: "name.service"))
    var unit: String?

    func validate() throws {
        if flatpak != nil, snap != nil { throw ValidationError("--flatpak and --snap exclude each other") }
    }

    /// The program named. `pinned`: with the SHA-256 of the executable (and of the script
    /// file), pinned, so that a changed file no longer matches. `mustExist`: the executable
    /// must be there (a grant); a revoke may name a program that is gone.
    func program(pinned: Bool, mustExist: Bool) throws -> Program {
        let (executablePath, executableDigest) = try ProgramPaths.executable(executable, naming: "PROGRAM", pinned: pinned, mustExist: mustExist)
        var scriptPath: [UInt8]?, scriptDigest: [UInt8]?
        if let script {
            if script.hasPrefix("module:") || script.hasPrefix("class:") {
                scriptPath = Array(script.utf8)
            } else {
                scriptPath = try ProgramPaths.real(script, naming: "--script", mustExist: mustExist || pinned)
                if pinned { scriptDigest = try ProgramPaths.digest(of: script, naming: "--script") }
            }
        }
        return try Program(
            executablePath: executablePath, executableDigest: executableDigest,
            executablePinned: pinned, script: scriptPath, scriptDigest: scriptDigest, scriptPinned: scriptDigest != nil,
            sandboxApp: flatpak.map { "flatpak:" + $0 } ?? snap.map { "snap:" + $0 }, systemdUnit: unit)
    }
}
