import Coffer
import CofferBase

/// A program in `coffer access show --json` and `log --json`. A path that is valid UTF-8 is
/// its text exactly; one that is not is ``Program/printable(_:)``'s escaped form (`\xNN` for each
/// invalid byte, `\\` for a backslash, `\u{…}` for control characters), with `executableEscaped`
/// or `scriptEscaped` true. Digests are hex.
struct ProgramJSON: Encodable {
    let executable: String
    let executableEscaped: Bool?
    let executableSHA256: String?
    let executablePinned: Bool
    let script: String?
    let scriptEscaped: Bool?
    let scriptSHA256: String?
    let scriptPinned: Bool?
    /// `flatpak:APP-ID` or `snap:NAME`.
    let app: String?
    let unit: String?
    /// ``Program/description``: what the text output shows.
    let description: String

    init(_ program: Program) {
        let executable = Self.text(program.executablePath)
        self.executable = executable.text
        executableEscaped = executable.escaped
        executableSHA256 = program.executableDigest.map { Hex.encode($0) }
        executablePinned = program.executablePinned
        let script = program.script.map(Self.text)
        self.script = script?.text
        scriptEscaped = script?.escaped
        scriptSHA256 = program.scriptDigest.map { Hex.encode($0) }
        scriptPinned = program.script == nil ? nil : program.scriptPinned
        app = program.sandboxApp
        unit = program.systemdUnit
        description = program.description
    }

    /// The path as text, and `true` when it had to be escaped (`nil` when not, so the field is left out).
    private static func text(_ path: [UInt8]) -> (text: String, escaped: Bool?) {
        if let text = String(validating: path, as: UTF8.self) { return (text, nil) }
        return (Program.printable(path), true)
    }
}
