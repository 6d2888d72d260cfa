import Coffer
import CofferBase
import CofferCommandLine
import Glibc

/// Program paths given on the command line.
enum ProgramPaths {
    /// The executable `text` names, for PROGRAM and `--allow`: its real path, and with `pinned`
    /// its SHA-256.
    static func executable(_ text: String, naming name: String, pinned: Bool, mustExist: Bool) throws -> (path: [UInt8], digest: [UInt8]?) {
        let path = try real(text, naming: name, mustExist: mustExist || pinned)
        return (path, pinned ? try digest(of: text, naming: name) : nil)
    }

    /// The real path of `text`, which must be absolute (else a usage error); when nothing is
    /// there, `text` itself, or a usage error when `mustExist`.
    static func real(_ text: String, naming name: String, mustExist: Bool) throws -> [UInt8] {
        guard text.hasPrefix("/") else {
            throw CLIError.usage("\(name) must be an absolute path (the program's executable), not \(TerminalText.escaped(text))")
        }
        guard let resolved = realpath(text, nil) else {
            let reason = String(cString: strerror(errno))
            guard !mustExist else { throw CLIError.usage("\(name) \(TerminalText.escaped(text)): \(reason)") }
            return Array(text.utf8)
        }
        defer { free(resolved) }
        return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    /// The SHA-256 of the file at `text`, to pin it; a usage error when it is no regular file or cannot be read.
    static func digest(of text: String, naming name: String) throws -> [UInt8] {
        guard let digest = SHA256Hasher.digest(ofFileAt: text) else {
            throw CLIError.usage("\(name) \(TerminalText.escaped(text)) is not a regular file that can be read, so it cannot be pinned")
        }
        return digest
    }

    /// The files of `program` (its executable, its script) that the user could change, so that
    /// only a pin keeps another content from passing for them (``PinRule``).
    static func filesUserCanModify(_ program: Program) -> [String] {
        [program.executablePath, program.script].compactMap { path in
            guard let path, path.first == UInt8(ascii: "/"), PinRule.userCanModify(path, uid: geteuid()) else { return nil }
            return String(decoding: path, as: UTF8.self)
        }
    }
}
