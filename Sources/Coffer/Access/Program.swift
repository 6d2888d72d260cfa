/// A program as an item's owner or access list names it: its executable, and what tells apart
/// the programs that share one (an interpreter's script, a sandboxed app, a systemd service).
///
/// Its ``encoded`` form is what a vault stores (docs/vault-format.md, 5.5). Nothing in it is
/// secret.
package struct Program: Hashable, Sendable, CustomStringConvertible {
    /// The executable's real path, as `/proc/PID/exe` names it.
    package var executable: String
    /// The executable's SHA-256.
    package var executableDigest: [UInt8]?
    /// Whether ``executableDigest`` must match: set for a program its user can modify.
    package var executablePinned: Bool
    /// An interpreter's script: its real path, or `module:NAME` for `python -m NAME`.
    package var script: String?
    /// The script's SHA-256.
    package var scriptDigest: [UInt8]?
    /// Whether ``scriptDigest`` must match.
    package var scriptPinned: Bool
    /// The sandboxed app: `flatpak:ID` or `snap:NAME`.
    package var sandboxApp: String?
    /// The systemd service unit the program runs in, such as `backup.service`.
    package var unit: String?

    package init(
        executable: String, executableDigest: [UInt8]? = nil, executablePinned: Bool = false,
        script: String? = nil, scriptDigest: [UInt8]? = nil, scriptPinned: Bool = false,
        sandboxApp: String? = nil, unit: String? = nil
    ) {
        self.executable = executable
        self.executableDigest = executableDigest
        self.executablePinned = executablePinned
        self.script = script
        self.scriptDigest = scriptDigest
        self.scriptPinned = scriptPinned
        self.sandboxApp = sandboxApp
        self.unit = unit
    }

    /// The most bytes an encoded program takes.
    package static let maxEncodedBytes = 8192
    static let digestLength = 32

    enum Tag: UInt8 {
        case executable = 0x01, executableDigest = 0x02, executablePinned = 0x03
        case script = 0x04, scriptDigest = 0x05, scriptPinned = 0x06
        case sandboxApp = 0x07, unit = 0x08
    }

    /// `field*` in the item record's field layout, tags ascending; text in UTF-8, flags as empty fields.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        func field(_ tag: Tag, _ value: some Collection<UInt8>) { TaggedFields.append(tag.rawValue, value, to: &out) }
        field(.executable, executable.utf8)
        if let executableDigest { field(.executableDigest, executableDigest) }
        if executablePinned { field(.executablePinned, []) }
        if let script { field(.script, script.utf8) }
        if let scriptDigest { field(.scriptDigest, scriptDigest) }
        if scriptPinned { field(.scriptPinned, []) }
        if let sandboxApp { field(.sandboxApp, sandboxApp.utf8) }
        if let unit { field(.unit, unit.utf8) }
        return out
    }

    /// Decodes a program, enforcing every rule of docs/vault-format.md 5.5; `nil` when it breaks one.
    package init?(encoded: some Collection<UInt8>) {
        guard let program = try? Self.decode(ArraySlice(encoded)) else { return nil }
        self = program
    }

    /// The decoder of ``init(encoded:)``, throwing ``CofferError/integrityFailure``.
    static func decode(_ bytes: ArraySlice<UInt8>) throws(CofferError) -> Program {
        try check(bytes)
        var program = Program(executable: "")
        var reader = TaggedFields.Reader(bytes)
        while let (rawTag, value) = try reader.next() {
            switch Tag(rawValue: rawTag) {
            case .executable?: program.executable = String(decoding: value, as: UTF8.self)
            case .executableDigest?: program.executableDigest = Array(value)
            case .executablePinned?: program.executablePinned = true
            case .script?: program.script = String(decoding: value, as: UTF8.self)
            case .scriptDigest?: program.scriptDigest = Array(value)
            case .scriptPinned?: program.scriptPinned = true
            case .sandboxApp?: program.sandboxApp = String(decoding: value, as: UTF8.self)
            case .unit?: program.unit = String(decoding: value, as: UTF8.self)
            case nil: throw .integrityFailure
            }
        }
        return program
    }

    /// Checks an encoding against every rule of docs/vault-format.md 5.5 without building the
    /// program, allocating nothing: what every read of a record does, whether or not its caller
    /// wants the item's access. Throws ``CofferError/integrityFailure``.
    static func check(_ bytes: ArraySlice<UInt8>) throws(CofferError) {
        guard bytes.count <= maxEncodedBytes else { throw .integrityFailure }
        var reader = TaggedFields.Reader(bytes)
        var seen: UInt16 = 0  // a bit per tag met
        func met(_ tag: Tag) -> Bool { seen & (1 << tag.rawValue) != 0 }
        while let (rawTag, value) = try reader.next() {
            guard let tag = Tag(rawValue: rawTag) else { throw .integrityFailure }
            let valid = switch tag {
            case .executable, .script, .sandboxApp, .unit: !value.isEmpty && TaggedFields.isValidUTF8(value)
            case .executableDigest: value.count == digestLength
            case .scriptDigest: value.count == digestLength && met(.script)
            case .executablePinned: value.isEmpty && met(.executableDigest)
            case .scriptPinned: value.isEmpty && met(.scriptDigest)
            }
            guard valid else { throw .integrityFailure }
            seen |= 1 << tag.rawValue
        }
        guard met(.executable) else { throw .integrityFailure }
    }

    /// Throws ``CofferError/invalidArgument(reason:)`` unless this program encodes to bytes a
    /// reader accepts: a non-empty executable, 32-byte digests, pins only with digests, within
    /// ``maxEncodedBytes``.
    func validate() throws(CofferError) {
        guard Program(encoded: encoded) == self else {
            throw .invalidArgument(reason: "the program \(self) cannot be stored (an empty name, a digest that is not 32 bytes, a pin without a digest, or more than \(Self.maxEncodedBytes) bytes)")
        }
    }

    /// Whether `other` (a caller) is this program (an owner or an access-list entry): the same
    /// executable, script, sandboxed app and unit, and where this program pins a digest, the
    /// same digest.
    package func matches(_ other: Program) -> Bool {
        isSameProgram(as: other)
            && (!executablePinned || other.executableDigest == executableDigest)
            && (!scriptPinned || other.scriptDigest == scriptDigest)
    }

    /// The same executable, script, app and unit, whatever the digests and pins.
    package func isSameProgram(as other: Program) -> Bool {
        executable == other.executable && script == other.script && sandboxApp == other.sandboxApp && unit == other.unit
    }

    /// The executable, then the script, the app and the unit where there are; `(pinned)` after
    /// each part whose content must match.
    package var description: String {
        var parts = [executable + (executablePinned ? " (pinned)" : "")]
        if let script { parts.append("script " + script + (scriptPinned ? " (pinned)" : "")) }
        if let sandboxApp { parts.append("app " + sandboxApp) }
        if let unit { parts.append("unit " + unit) }
        return parts.joined(separator: ", ")
    }
}
