import FoundationEssentials

/// One access to a vault's items as its audit log keeps it (docs/vault-format.md, 8.2): when,
/// which program, through which front door, which item, what was done and what was decided.
/// Never a secret.
package struct AuditEntry: Hashable, Sendable {
    /// When the access was decided.
    package var time: Date
    /// The program that asked; `nil` when it could not be identified.
    package var program: Program?
    /// How it reached the vault.
    package var frontDoor: FrontDoor
    /// What it did.
    package var action: Action
    /// The item concerned; `nil` for a listing or a change of the policy.
    package var item: ItemID?
    /// What was decided.
    package var decision: Decision

    package init(time: Date, program: Program?, frontDoor: FrontDoor, action: Action, item: ItemID? = nil, decision: Decision) {
        self.time = time
        self.program = program
        self.frontDoor = frontDoor
        self.action = action
        self.item = item
        self.decision = decision
    }

    /// How a program reached the vault. A name, so that later front doors need no new format.
    package struct FrontDoor: AuditName {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        /// The agent's socket (the CLI and the library through the agent).
        package static let agent = FrontDoor(rawValue: "agent")
        /// The Secret Service on D-Bus.
        package static let secretService = FrontDoor(rawValue: "secret-service")
        /// The `coffer` command with the vault open itself.
        package static let cli = FrontDoor(rawValue: "cli")
        /// A credential helper (git, docker).
        package static let credentialHelper = FrontDoor(rawValue: "credential-helper")
        /// A share's socket (`coffer agent share`): a sandbox or another host.
        package static let share = FrontDoor(rawValue: "share")
    }

    /// What a program did.
    package struct Action: AuditName {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package static let read = Action(rawValue: "read")
        package static let write = Action(rawValue: "write")
        package static let delete = Action(rawValue: "delete")
        package static let list = Action(rawValue: "list")
        package static let grant = Action(rawValue: "grant")
        package static let revoke = Action(rawValue: "revoke")
        package static let policy = Action(rawValue: "policy")
        /// A share of the vault's items began (`coffer agent share`).
        package static let share = Action(rawValue: "share")
        /// A share ended.
        package static let unshare = Action(rawValue: "unshare")
        /// An access token handed out for a brokered login (the item names its profile and scope).
        package static let token = Action(rawValue: "token")
    }

    /// What was decided, and why.
    package struct Decision: AuditName {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        /// Allowed: the program owns the item.
        package static let owner = Decision(rawValue: "owner")
        /// Allowed: the program is on the item's access list.
        package static let allowed = Decision(rawValue: "allowed")
        /// Allowed once by the user.
        package static let once = Decision(rawValue: "once")
        /// Allowed by the user, who put the program on the access list.
        package static let always = Decision(rawValue: "always")
        /// Allowed: the vault's policy is open.
        package static let open = Decision(rawValue: "open")
        /// Done by whoever opened the vault with one of its credentials (a passphrase, a key
        /// file, a slot): a grant, revoke or policy change through `coffer access` or `coffer set --allow`.
        package static let credential = Decision(rawValue: "credential")
        /// Allowed: a share's grant covers the item (front door `share`).
        package static let shared = Decision(rawValue: "shared")
        /// Refused: the item is outside the share's grant, or the share is read-only.
        package static let outsideGrant = Decision(rawValue: "outside-grant")
        /// A share ended by `coffer agent unshare`.
        package static let revoked = Decision(rawValue: "revoked")
        /// A share ended when its time ran out.
        package static let expired = Decision(rawValue: "expired")
        /// A share ended when the agent stopped.
        package static let stopped = Decision(rawValue: "stopped")
        /// Refused, by the user or by the policy.
        package static let denied = Decision(rawValue: "denied")
        /// Refused: nobody could be asked.
        package static let noPrompter = Decision(rawValue: "no-prompter")
        /// Refused: the user did not answer in time.
        package static let timedOut = Decision(rawValue: "timed-out")
    }

    /// Throws ``CofferError/invalidArgument(reason:)`` unless the entry can be stored: valid
    /// names, a program and an item within their limits, a time that fits.
    package func validate() throws(CofferError) {
        for name in [frontDoor.rawValue, action.rawValue, decision.rawValue] {
            guard (try? FrontDoor(validating: ArraySlice(name.utf8))) != nil else {
                throw .invalidArgument(reason: "an audit entry's names are 1-32 bytes of a-z, 0-9 and -")
            }
        }
        guard ItemRecord.milliseconds(time) != nil else { throw .invalidArgument(reason: "the audit entry's time is out of range") }
        try item?.validate()
    }

    enum Tag: UInt8 {
        case time = 0x01, program = 0x02, frontDoor = 0x03, action = 0x04, item = 0x05, decision = 0x06
    }

    /// The entry's plaintext: fields in the item record's layout, tags ascending.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        func field(_ tag: Tag, _ value: some Collection<UInt8>) { TaggedFields.append(tag.rawValue, value, to: &out) }
        field(.time, bigEndianBytes(ItemRecord.milliseconds(time) ?? Int64.max))
        if let program { field(.program, program.encoded) }
        field(.frontDoor, frontDoor.rawValue.utf8)
        field(.action, action.rawValue.utf8)
        if let item { field(.item, VaultFormat.blindIndexInput(item)) }
        field(.decision, decision.rawValue.utf8)
        return out
    }

    /// Decodes an entry, enforcing every rule of docs/vault-format.md 8.2; throws
    /// ``CofferError/integrityFailure`` for one that breaks any.
    package static func decode(_ bytes: [UInt8]) throws(CofferError) -> AuditEntry {
        var reader = TaggedFields.Reader(bytes[...])
        var time: Date?, program: Program?, frontDoor: FrontDoor?, action: Action?, item: ItemID?, decision: Decision?
        while let (rawTag, value) = try reader.next() {
            guard let tag = Tag(rawValue: rawTag) else { throw .integrityFailure }
            switch tag {
            case .time: time = try ItemRecord.date(value)
            case .program: program = try Program.decode(value)
            case .frontDoor: frontDoor = try FrontDoor(validating: value)
            case .action: action = try Action(validating: value)
            case .item: item = try ItemRecord.itemID(fromIndexInput: value)
            case .decision: decision = try Decision(validating: value)
            }
        }
        guard let time, let frontDoor, let action, let decision else { throw .integrityFailure }
        return AuditEntry(time: time, program: program, frontDoor: frontDoor, action: action, item: item, decision: decision)
    }
}

/// A name an audit entry stores: 1–32 bytes of `a`–`z`, `0`–`9` and `-`. A reader keeps a name
/// it does not know as it is.
package protocol AuditName: RawRepresentable, Hashable, Sendable, CustomStringConvertible where RawValue == String {
    init(rawValue: String)
}

extension AuditName {
    package var description: String { rawValue }

    static var maxBytes: Int { 32 }

    init(validating value: ArraySlice<UInt8>) throws(CofferError) {
        let allowed = { (byte: UInt8) in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D }
        guard (1...Self.maxBytes).contains(value.count), value.allSatisfy(allowed) else { throw .integrityFailure }
        self.init(rawValue: String(decoding: value, as: UTF8.self))
    }
}
