import CofferBase
import Glibc

/// A program, as an item's owner or an access-list entry names it: an executable, and what the
/// executable runs when it is an interpreter, inside which sandbox and systemd service.
///
/// Paths are bytes, exactly as the kernel gives them: a Linux path need not be UTF-8, and two
/// paths name the same file only when their bytes are equal (as Swift strings, a precomposed
/// and a decomposed `é` compare equal, and they are two different files). The sandbox app and
/// the systemd unit are ASCII names.
///
/// ``encoded`` is the program's one binary form (docs/vault-format.md, section 8):
/// fields `u8 tag || u32be length || value` in ascending tag order, each at most once.
/// ``init(encoded:)`` accepts only that form, so a program and its encoding correspond one to one.
public struct Program: Hashable, Sendable, CustomStringConvertible {
    /// The largest encoding.
    public static let maxEncodedBytes = 8192
    /// The length of a SHA-256 digest.
    public static let digestLength = 32

    /// The executable's real path (`/proc/PID/exe`); a ` (deleted)` or ` (unreachable)` suffix
    /// marks a file that is no longer, or never was, at that path for Coffer.
    public let executablePath: [UInt8]
    /// The SHA-256 of the executable file, when known.
    public let executableDigest: [UInt8]?
    /// Whether ``matches(_:)`` compares ``executableDigest`` as well as the path.
    public let executablePinned: Bool
    /// What an interpreter runs: a script's real path, `module:NAME` (`python -m NAME`,
    /// `java -m NAME`), or `class:NAME` (`java NAME`); `nil` for any other program, and for an
    /// interpreter that runs no script (`sh -c`, `python3 -c`, an interactive session).
    public let script: [UInt8]?
    /// The SHA-256 of the script file, when known.
    public let scriptDigest: [UInt8]?
    /// Whether ``matches(_:)`` compares ``scriptDigest`` as well as the script.
    public let scriptPinned: Bool
    /// The sandbox the program runs in: `flatpak:APP-ID` or `snap:NAME`.
    public let sandboxApp: String?
    /// The systemd service the program runs in (`backup.service`).
    public let systemdUnit: String?

    /// A program; throws ``CofferError/invalidArgument(reason:)`` when a part breaks the rules
    /// of the encoding (a pin without a digest, a digest that is not 32 bytes, a path that is
    /// not absolute or holds a NUL, a malformed app or unit, an encoding over 8192 bytes).
    public init(
        executablePath: [UInt8], executableDigest: [UInt8]? = nil, executablePinned: Bool = false,
        script: [UInt8]? = nil, scriptDigest: [UInt8]? = nil, scriptPinned: Bool = false,
        sandboxApp: String? = nil, systemdUnit: String? = nil
    ) throws(CofferError) {
        self.init(
            unchecked: executablePath, executableDigest, executablePinned, script, scriptDigest, scriptPinned, sandboxApp, systemdUnit)
        if let problem { throw .invalidArgument(reason: "a program \(problem)") }
    }

    /// The same program with each digest it has pinned (`coffer access grant --pin`).
    public var pinningDigests: Program {
        Program(
            unchecked: executablePath, executableDigest, executableDigest != nil, script, scriptDigest, scriptDigest != nil,
            sandboxApp, systemdUnit)
    }

    private init(
        unchecked executablePath: [UInt8], _ executableDigest: [UInt8]?, _ executablePinned: Bool, _ script: [UInt8]?,
        _ scriptDigest: [UInt8]?, _ scriptPinned: Bool, _ sandboxApp: String?, _ systemdUnit: String?
    ) {
        self.executablePath = executablePath
        self.executableDigest = executableDigest
        self.executablePinned = executablePinned
        self.script = script
        self.scriptDigest = scriptDigest
        self.scriptPinned = scriptPinned
        self.sandboxApp = sandboxApp
        self.systemdUnit = systemdUnit
    }

    // MARK: - Matching

    /// Whether `other` (a caller) is the program this one (an owner or an entry) names: the
    /// same executable path, script, sandbox app and unit, byte for byte; and, for each digest
    /// this one pins, the same digest.
    public func matches(_ other: Program) -> Bool {
        guard executablePath == other.executablePath, script == other.script, sandboxApp == other.sandboxApp,
              systemdUnit == other.systemdUnit
        else { return false }
        if executablePinned, other.executableDigest == nil || other.executableDigest != executableDigest { return false }
        if scriptPinned, other.scriptDigest == nil || other.scriptDigest != scriptDigest { return false }
        return true
    }

    /// The same executable, script, sandbox app and unit, whatever the digests and pins: the
    /// entry `revoke` removes, and the one `grant` replaces.
    package func isSameProgram(as other: Program) -> Bool {
        executablePath == other.executablePath && script == other.script && sandboxApp == other.sandboxApp
            && systemdUnit == other.systemdUnit
    }

    // MARK: - Encoding

    private enum Tag: UInt8 {
        case executablePath = 0x01, executableDigest = 0x02, executablePinned = 0x03
        case script = 0x04, scriptDigest = 0x05, scriptPinned = 0x06
        case sandboxApp = 0x07, systemdUnit = 0x08
    }

    /// The program's binary form, at most ``maxEncodedBytes``.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        func field(_ tag: Tag, _ value: some Collection<UInt8>) {
            out.append(tag.rawValue)
            out.append(contentsOf: bigEndianBytes(UInt32(value.count)))
            out.append(contentsOf: value)
        }
        field(.executablePath, executablePath)
        if let executableDigest { field(.executableDigest, executableDigest) }
        if executablePinned { field(.executablePinned, []) }
        if let script { field(.script, script) }
        if let scriptDigest { field(.scriptDigest, scriptDigest) }
        if scriptPinned { field(.scriptPinned, []) }
        if let sandboxApp { field(.sandboxApp, sandboxApp.utf8) }
        if let systemdUnit { field(.systemdUnit, systemdUnit.utf8) }
        return out
    }

    /// The length of ``encoded``, counted without encoding.
    private var encodedCount: Int {
        let values: [Int?] = [
            executablePath.count, executableDigest?.count, executablePinned ? 0 : nil, script?.count, scriptDigest?.count,
            scriptPinned ? 0 : nil, sandboxApp?.utf8.count, systemdUnit?.utf8.count,
        ]
        return values.reduce(0) { $0 + ($1.map { 5 + $0 } ?? 0) }
    }

    /// Reads ``encoded``; `nil` for anything else: an unknown tag, tags out of order or
    /// repeated, a length past the end, more than ``maxEncodedBytes``, no executable path, a
    /// digest that is not 32 bytes, a pin flag with a value or without its digest, or a part
    /// that breaks the rules of ``init(executablePath:executableDigest:executablePinned:script:scriptDigest:scriptPinned:sandboxApp:systemdUnit:)``.
    public init?(encoded bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard let parts = EncodedParts.checking(bytes[...]) else { return nil }
        self.init(
            unchecked: Array(parts.path), parts.digest.map(Array.init), parts.pinned, parts.script.map(Array.init),
            parts.scriptDigest.map(Array.init), parts.scriptPinned, parts.app.map { String(decoding: $0, as: UTF8.self) },
            parts.unit.map { String(decoding: $0, as: UTF8.self) })
    }

    /// An encoding's fields, as slices of it, once every rule of ``init(encoded:)`` holds.
    /// Every read of an item's record checks its owner this way, building nothing.
    private struct EncodedParts {
        var path: ArraySlice<UInt8> = []
        var digest: ArraySlice<UInt8>?, script: ArraySlice<UInt8>?, scriptDigest: ArraySlice<UInt8>?
        var app: ArraySlice<UInt8>?, unit: ArraySlice<UInt8>?
        var pinned = false, scriptPinned = false

        /// The parts of `bytes`, or `nil` when they break a rule.
        static func checking(_ bytes: ArraySlice<UInt8>) -> EncodedParts? {
            guard bytes.count <= Program.maxEncodedBytes else { return nil }
            var parts = EncodedParts()
            var offset = bytes.startIndex, lastTag: UInt8 = 0, hasPath = false
            while offset < bytes.endIndex {
                guard bytes.endIndex - offset >= 5, let tag = Tag(rawValue: bytes[offset]), tag.rawValue > lastTag else { return nil }
                let length = Int(bytes[(offset + 1)..<(offset + 5)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                guard bytes.endIndex - offset - 5 >= length else { return nil }
                let value = bytes[(offset + 5)..<(offset + 5 + length)]
                switch tag {
                case .executablePath: (parts.path, hasPath) = (value, true)
                case .executableDigest: parts.digest = value
                case .executablePinned, .scriptPinned:
                    guard value.isEmpty else { return nil }
                    if tag == .executablePinned { parts.pinned = true } else { parts.scriptPinned = true }
                case .script: parts.script = value
                case .scriptDigest: parts.scriptDigest = value
                case .sandboxApp: parts.app = value
                case .systemdUnit: parts.unit = value
                }
                offset += 5 + length
                lastTag = tag.rawValue
            }
            guard hasPath, Program.problem(parts, encodedCount: bytes.count) == nil else { return nil }
            return parts
        }
    }

    /// What makes this program one the encoding cannot hold, or `nil`.
    private var problem: String? {
        let parts = EncodedParts(
            path: executablePath[...], digest: executableDigest?[...], script: script?[...], scriptDigest: scriptDigest?[...],
            app: sandboxApp.map { Array($0.utf8)[...] }, unit: systemdUnit.map { Array($0.utf8)[...] }, pinned: executablePinned,
            scriptPinned: scriptPinned)
        return Self.problem(parts, encodedCount: encodedCount)
    }

    /// The rule `parts` breaks, or `nil`. Bytes throughout, so a record's owner is checked in
    /// place; the sandbox app and the unit are ASCII, so bytes that pass are valid UTF-8.
    private static func problem(_ parts: EncodedParts, encodedCount: Int) -> String? {
        if !isAbsolutePath(parts.path) { return "needs an absolute executable path with no NUL byte" }
        if let digest = parts.digest, digest.count != digestLength { return "digest must be \(digestLength) bytes" }
        if parts.pinned, parts.digest == nil { return "cannot pin an executable without its digest" }
        if let script = parts.script, !isScript(script) { return "script must be an absolute path, module:NAME or class:NAME, with no NUL byte" }
        if let scriptDigest = parts.scriptDigest, parts.script == nil || scriptDigest.count != digestLength {
            return "script digest must be \(digestLength) bytes, with its script"
        }
        if parts.scriptPinned, parts.scriptDigest == nil { return "cannot pin a script without its digest" }
        if let app = parts.app, !isSandboxApp(app) { return "sandbox app must be flatpak:APP-ID or snap:NAME" }
        if let unit = parts.unit, !isServiceUnit(unit) { return "systemd unit must be a valid name ending in .service" }
        if encodedCount > maxEncodedBytes { return "encodes to more than \(maxEncodedBytes) bytes" }
        return nil
    }

    private static func isAbsolutePath(_ path: ArraySlice<UInt8>) -> Bool {
        path.first == UInt8(ascii: "/") && !hasNUL(path)
    }

    /// Whether `bytes` hold a NUL byte (a record's owner is checked on every read: `memchr`).
    private static func hasNUL(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { $0.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }
    }

    private static func isScript(_ script: ArraySlice<UInt8>) -> Bool {
        guard !hasNUL(script) else { return false }
        if script.first == UInt8(ascii: "/") { return true }
        return ["module:", "class:"].contains { prefix in
            script.count > prefix.utf8.count && script.starts(with: prefix.utf8)
        }
    }

    /// `flatpak:` and a Flatpak application id (letters, digits, `_`, `-`, `.`), or `snap:` and
    /// a snap name (lower-case letters, digits, `-`).
    private static func isSandboxApp(_ app: ArraySlice<UInt8>) -> Bool {
        func name(after prefix: String, _ allowed: (UInt8) -> Bool, max: Int) -> Bool {
            guard app.starts(with: prefix.utf8) else { return false }
            let name = app.dropFirst(prefix.utf8.count)
            return !name.isEmpty && name.count <= max && name.allSatisfy(allowed)
        }
        return name(after: "flatpak:", { isASCIIAlphanumeric($0) || "_-.".utf8.contains($0) }, max: 255)
            || name(after: "snap:", { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }, max: 40)
    }

    /// A systemd unit name (letters, digits, `:`, `-`, `_`, `.`, `\`, `@`; at most 255 bytes)
    /// ending in `.service`.
    private static func isServiceUnit(_ unit: ArraySlice<UInt8>) -> Bool {
        let suffix = ".service".utf8
        return unit.count > suffix.count && unit.count <= 255 && unit.reversed().starts(with: suffix.reversed())
            && unit.allSatisfy { isASCIIAlphanumeric($0) || ":-_.\\@".utf8.contains($0) }
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    // MARK: - Description

    /// For prompts and `coffer access show`: the paths (bytes that are not printable UTF-8
    /// escaped as `\xNN`, control and format characters as `\u{…}`, so no path can forge a
    /// line of a prompt), the app, the unit, and the first 12 hex digits of each pinned digest.
    public var description: String {
        var text = Self.printable(executablePath)
        if let script { text += " running " + Self.printable(script) }
        if let sandboxApp { text += " in " + sandboxApp }
        if let systemdUnit { text += " as " + systemdUnit }
        var pins: [String] = []
        if executablePinned, let executableDigest { pins.append("executable sha256 " + Hex.encode(executableDigest.prefix(6)) + "…") }
        if scriptPinned, let scriptDigest { pins.append("script sha256 " + Hex.encode(scriptDigest.prefix(6)) + "…") }
        if !pins.isEmpty { text += " (pinned: " + pins.joined(separator: ", ") + ")" }
        return text
    }

    /// `bytes` as text that shows every byte: valid UTF-8 as itself, except `\`, control,
    /// format and separator characters, which are escaped; invalid bytes as `\xNN`.
    package static func printable(_ bytes: [UInt8]) -> String {
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                offset += encoded.count
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                    text += "\\u{" + String(scalar.value, radix: 16) + "}"
                default:
                    text += scalar == "\\" ? "\\\\" : String(scalar)
                }
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] { text += "\\x" + Hex.encode([byte]) }
                offset += length
            case .emptyInput:
                return text
            }
        }
    }
}

extension Program {
    /// The program an item's record holds (docs/vault-format.md 5.5): ``init(encoded:)``,
    /// throwing ``CofferError/integrityFailure`` for an encoding that breaks a rule.
    static func decode(_ bytes: ArraySlice<UInt8>) throws(CofferError) -> Program {
        guard let program = Program(encoded: bytes) else { throw .integrityFailure }
        return program
    }

    /// Checks a record's program field against every rule of ``init(encoded:)``, as every read
    /// of the record does, without building the program.
    package static func check(_ bytes: ArraySlice<UInt8>) throws(CofferError) {
        guard EncodedParts.checking(bytes) != nil else { throw .integrityFailure }
    }
}

