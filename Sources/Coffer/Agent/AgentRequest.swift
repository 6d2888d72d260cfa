import CofferAgentWire
import FoundationEssentials

/// What a client asks the agent (docs/agent.md, section 3).
package enum AgentRequest: Sendable {
    case ping
    /// Work out now which program the client is, remember it for this connection, and keep the
    /// connection open for the client's next requests (docs/agent.md, section 3). Answered as
    /// `ping` is.
    case identify
    case status
    case stop
    /// Unlock the vault at `vault` (a real path) with `credential`, for `lifetime` seconds.
    case unlock(vault: String, credential: AgentCredential, lifetime: UInt32)
    /// Forget one vault, or every vault when `vault` is `nil`.
    case lock(vault: String?)
    /// Whether the agent holds the vault unlocked with current keys.
    case holds(vault: String)
    /// Store `secret` as the item `id` with `options`. On the wire, a whole item record, or for a
    /// plain generic or internet password with no options, its id and secret alone (the thin
    /// `coffer set`, which has no record encoder: docs/agent.md, section 3).
    case set(vault: String, id: ItemID, secret: Data, options: ItemOptions)
    case item(vault: String, id: ItemID)
    case secret(vault: String, id: ItemID)
    case remove(vault: String, id: ItemID)
    /// The items `query` finds, in store order: those after `after` when it is given, as many
    /// as one reply holds (``ItemPage``).
    case items(vault: String, query: ItemQuery, after: ItemID? = nil)
    case removeAll(vault: String, query: ItemQuery)
    /// Serve, on a new socket at `socket` (an absolute path), only what `grant` covers of the
    /// vault at `vault`, for `lifetime` seconds (docs/agent.md, "Sharing"). `credential`, one
    /// that opens the vault, is the person's consent: the agent shares a vault whose policy is
    /// not `open` only with it.
    case share(vault: String, socket: String, grant: ShareGrant, lifetime: UInt32, credential: AgentCredential?)
    /// End the share served at `socket`: its socket is removed and its connections closed.
    case unshare(socket: String)
    /// A valid access token of the login `profile` the agent holds in the vault at `vault`,
    /// refreshed first when needed; `refused`: an access token a resource refused, which is not
    /// handed out again (docs/agent.md, "The token broker").
    case token(vault: String, profile: String, refused: String?)
    /// Keep the new login `login` (``BrokeredLogin``'s encoding: provider, client and session,
    /// refresh token included) as profile `profile` in the vault at `vault`, owned by the caller.
    case keepLogin(vault: String, profile: String, login: SecureBytes)
    /// End the login `profile`: revoke its refresh token at the provider, and remove it.
    case endLogin(vault: String, profile: String)
    /// A credential helper's `get` on the vault at `vault`, answered in the agent by the helper's
    /// own rules with `input` as the helper read it (git's description, docker's server URL): one
    /// request in place of the searches and reads the helper would send (docs/agent.md, section 3).
    case helperGet(vault: String, helper: CredentialHelperKind, input: SecureBytes)
    /// `coffer list`'s text for the items `query` finds (``ItemListing``), answered as the
    /// `items` request for the same query is: one request for the thin `coffer`, which has no
    /// record decoder (docs/agent.md, section 3).
    case listing(vault: String, query: ItemQuery)

    typealias Kind = AgentRequestKind
    typealias Tag = AgentRequestTag

    /// Whether answering may run Argon2id (an unlock, or a share with a passphrase to check):
    /// such a request goes to the agent's unlock threads, so that it holds up no other.
    package var mayDeriveAKey: Bool {
        switch self {
        case .unlock: true
        case .share(_, _, _, _, let credential): credential != nil
        default: false
        }
    }

    /// The longest lifetime an unlock may ask for: a week.
    package static let maxLifetime: UInt32 = 604_800

    package var message: AgentMessage {
        func field(_ tag: Tag, _ value: [UInt8]) -> AgentMessage.Field { AgentMessage.Field(tag.rawValue, value) }
        func vaultField(_ path: String) -> AgentMessage.Field { field(.vault, Array(path.utf8)) }
        func credentialFields(_ credential: AgentCredential) -> [AgentMessage.Field] {
            [field(.credentialKind, [credential.kind]), field(.credential, credential.bytes)]
        }
        func queryFields(_ query: ItemQuery) -> [AgentMessage.Field] {
            var fields: [AgentMessage.Field] = []
            if let itemClass = query.itemClass { fields.append(field(.queryClass, [itemClass.rawValue])) }
            if let service = query.service { fields.append(field(.queryService, Array(service.utf8))) }
            if let account = query.account { fields.append(field(.queryAccount, Array(account.utf8))) }
            for (name, value) in query.custom.sorted(by: { $0.key < $1.key }) {
                fields.append(field(.queryAttribute, bigEndian(UInt32(name.utf8.count)) + Array(name.utf8) + Array(value.utf8)))
            }
            return fields
        }
        switch self {
        case .ping: return AgentMessage(kind: Kind.ping.rawValue)
        case .identify: return AgentMessage(kind: Kind.identify.rawValue)
        case .status: return AgentMessage(kind: Kind.status.rawValue)
        case .stop: return AgentMessage(kind: Kind.stop.rawValue)
        case .unlock(let vault, let credential, let lifetime):
            return AgentMessage(kind: Kind.unlock.rawValue, fields: [vaultField(vault)] + credentialFields(credential) + [field(.lifetime, bigEndian(lifetime))])
        case .lock(let vault):
            return AgentMessage(kind: Kind.lock.rawValue, fields: [vault.map(vaultField) ?? field(.all, [])])
        case .holds(let vault):
            return AgentMessage(kind: Kind.holds.rawValue, fields: [vaultField(vault)])
        case .set(let vault, let id, let secret, let options):
            let attributes = ItemAttributes(
                id: id, label: options.label, comment: options.comment, custom: options.custom,
                created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: 0),
                expiresAt: options.expiresAt, internet: options.internet, contentType: options.contentType)
            return AgentMessage(kind: Kind.set.rawValue, fields: [vaultField(vault), field(.record, ItemRecord.encode(attributes, secret: secret))])
        case .item(let vault, let id): return AgentMessage(kind: Kind.item.rawValue, fields: [vaultField(vault), field(.id, Self.encode(id))])
        case .secret(let vault, let id): return AgentMessage(kind: Kind.secret.rawValue, fields: [vaultField(vault), field(.id, Self.encode(id))])
        case .remove(let vault, let id): return AgentMessage(kind: Kind.remove.rawValue, fields: [vaultField(vault), field(.id, Self.encode(id))])
        case .items(let vault, let query, let after):
            return AgentMessage(kind: Kind.items.rawValue, fields: [vaultField(vault)] + queryFields(query) + (after.map { [field(.after, Self.encode($0))] } ?? []))
        case .removeAll(let vault, let query):
            return AgentMessage(kind: Kind.removeAll.rawValue, fields: [vaultField(vault)] + queryFields(query))
        case .share(let vault, let socket, let grant, let lifetime, let credential):
            let scope: [AgentMessage.Field] = switch grant.scope {
            case .service(let itemClass, let service, let account):
                queryFields(ItemQuery(itemClass: itemClass, service: service, account: account))
            case .program(let program): [field(.program, program.encoded)]
            case .profile(let profile): [field(.profile, Array(profile.utf8))]
            }
            return AgentMessage(kind: Kind.share.rawValue, fields: [vaultField(vault)] + scope + [
                field(.lifetime, bigEndian(lifetime)), field(.socket, Array(socket.utf8)),
            ] + (grant.readWrite ? [field(.readWrite, [])] : []) + (credential.map(credentialFields) ?? []))
        case .unshare(let socket):
            return AgentMessage(kind: Kind.unshare.rawValue, fields: [field(.socket, Array(socket.utf8))])
        case .token(let vault, let profile, let refused):
            return AgentMessage(kind: Kind.token.rawValue, fields: [vaultField(vault), field(.profile, Array(profile.utf8))]
                + (refused.map { [field(.refused, Array($0.utf8))] } ?? []))
        case .keepLogin(let vault, let profile, let login):
            return AgentMessage(kind: Kind.keepLogin.rawValue, fields: [
                vaultField(vault), field(.profile, Array(profile.utf8)), field(.login, login.withUnsafeBytes { Array($0) }),
            ])
        case .endLogin(let vault, let profile):
            return AgentMessage(kind: Kind.endLogin.rawValue, fields: [vaultField(vault), field(.profile, Array(profile.utf8))])
        case .helperGet(let vault, let helper, let input):
            return AgentMessage(kind: Kind.helperGet.rawValue, fields: [
                vaultField(vault), field(.helper, [helper.rawValue]), field(.helperInput, input.withUnsafeBytes { Array($0) }),
            ])
        case .listing(let vault, let query): return AgentMessage(kind: Kind.listing.rawValue, fields: [vaultField(vault)] + queryFields(query))
        }
    }

    /// Reads a request, refusing anything the protocol does not allow.
    package init(_ message: AgentMessage) throws(AgentProtocolError) {
        guard let kind = Kind(rawValue: message.kind) else { throw AgentProtocolError("unknown request \(message.kind)") }
        guard message.fields.allSatisfy({ Tag(rawValue: $0.tag) != nil }) else { throw AgentProtocolError("unknown field") }
        func text(_ tag: Tag) throws(AgentProtocolError) -> String? {
            guard let bytes = try message.single(tag.rawValue) else { return nil }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw AgentProtocolError("field \(tag.rawValue) is not UTF-8") }
            return text
        }
        func vault() throws(AgentProtocolError) -> String {
            guard let path = try text(.vault), path.hasPrefix("/") else { throw AgentProtocolError("a request needs the vault's path") }
            return path
        }
        func socket() throws(AgentProtocolError) -> String {
            guard let path = try text(.socket), path.hasPrefix("/") else { throw AgentProtocolError("a share needs its socket's absolute path") }
            return path
        }
        func profile() throws(AgentProtocolError) -> String {
            guard let profile = try text(.profile), Self.isValidProfile(profile) else { throw AgentProtocolError("a request needs a valid profile") }
            return profile
        }
        func id() throws(AgentProtocolError) -> ItemID {
            guard let bytes = try message.single(Tag.id.rawValue), let id = Self.decodeID(bytes) else { throw AgentProtocolError("a request needs an item id") }
            return id
        }
        func query() throws(AgentProtocolError) -> ItemQuery {
            var query = ItemQuery()
            if let bytes = try message.single(Tag.queryClass.rawValue) {
                guard bytes.count == 1, let itemClass = ItemClass(rawValue: bytes[0]) else { throw AgentProtocolError("bad query class") }
                query.itemClass = itemClass
            }
            query.service = try text(.queryService)
            query.account = try text(.queryAccount)
            // No item has more: a longer query matches nothing, and hashing its tokens would hold the vault.
            let attributes = message.all(Tag.queryAttribute.rawValue)
            guard attributes.count <= Limits.maxCustomAttributes else {
                throw AgentProtocolError("a query has at most \(Limits.maxCustomAttributes) attributes")
            }
            for bytes in attributes {
                guard let (name, value) = Self.decodePair(bytes), query.custom[name] == nil else { throw AgentProtocolError("bad query attribute") }
                query.custom[name] = value
            }
            return query
        }
        /// The credential the request carries, if any; both of its fields, well-formed.
        func credential() throws(AgentProtocolError) -> AgentCredential? {
            let kindByte = try message.single(Tag.credentialKind.rawValue), bytes = try message.single(Tag.credential.rawValue)
            guard kindByte != nil || bytes != nil else { return nil }
            guard let kindByte, kindByte.count == 1, let bytes, let credential = AgentCredential(kind: kindByte[0], bytes: bytes) else {
                throw AgentProtocolError("a credential needs its kind and its bytes")
            }
            return credential
        }
        switch kind {
        case .ping: self = .ping
        case .identify: self = .identify
        case .status: self = .status
        case .stop: self = .stop
        case .unlock:
            guard let credential = try credential(),
                  let lifetimeBytes = try message.single(Tag.lifetime.rawValue),
                  let lifetime = readInteger(lifetimeBytes, as: UInt32.self), (1...Self.maxLifetime).contains(lifetime)
            else { throw AgentProtocolError("an unlock needs a credential and a lifetime of 1 to \(Self.maxLifetime) seconds") }
            self = .unlock(vault: try vault(), credential: credential, lifetime: lifetime)
        case .lock:
            self = try message.single(Tag.all.rawValue) != nil ? .lock(vault: nil) : .lock(vault: try vault())
        case .holds: self = .holds(vault: try vault())
        case .set:
            if let secret = try message.single(Tag.secret.rawValue) {
                guard try message.single(Tag.record.rawValue) == nil else { throw AgentProtocolError("a set carries a record or an id and a secret") }
                let given = try id()
                // The plain form is a generic or internet password's (an attribute item comes as a record).
                guard given.itemClass != .attributeItem else { throw AgentProtocolError("a set of an attribute item carries its record") }
                let id = ItemID(itemClass: given.itemClass, service: Normalization.nfc(given.service), account: Normalization.nfc(given.account))
                self = .set(vault: try vault(), id: id, secret: Data(secret), options: ItemOptions())
                break
            }
            guard try message.single(Tag.id.rawValue) == nil, let bytes = try message.single(Tag.record.rawValue),
                  let decoded = try? ItemRecord.decode(bytes)
            else { throw AgentProtocolError("a set needs a well-formed record") }
            let attributes = decoded.attributes
            self = .set(vault: try vault(), id: attributes.id, secret: decoded.secretData, options: attributes.options)
        case .item: self = .item(vault: try vault(), id: try id())
        case .secret: self = .secret(vault: try vault(), id: try id())
        case .remove: self = .remove(vault: try vault(), id: try id())
        case .items:
            self = .items(vault: try vault(), query: try query(), after: try message.single(Tag.after.rawValue).map(ItemPage.cursor))
        case .removeAll: self = .removeAll(vault: try vault(), query: try query())
        case .share:
            guard let lifetimeBytes = try message.single(Tag.lifetime.rawValue),
                  let lifetime = readInteger(lifetimeBytes, as: UInt32.self), (1...ShareGrant.maxLifetime).contains(lifetime)
            else { throw AgentProtocolError("a share needs a lifetime of 1 to \(ShareGrant.maxLifetime) seconds") }
            let scope: ShareGrant.Scope
            let query = try query()
            let programBytes = try message.single(Tag.program.rawValue)
            let readWrite = try message.single(Tag.readWrite.rawValue)
            guard readWrite?.isEmpty ?? true else { throw AgentProtocolError("a share's read-write flag has no value") }
            if try message.single(Tag.profile.rawValue) != nil {
                guard query == ItemQuery(), programBytes == nil, readWrite == nil else {
                    throw AgentProtocolError("a profile's share names the profile alone, read-only")
                }
                scope = .profile(try profile())
            } else if let bytes = programBytes {
                guard query == ItemQuery(), let program = Program(encoded: bytes) else { throw AgentProtocolError("a share names a program or a service") }
                scope = .program(program)
            } else {
                guard let itemClass = query.itemClass, let service = query.service, query.custom.isEmpty else {
                    throw AgentProtocolError("a share needs a class and a service, a program, or a profile")
                }
                scope = .service(itemClass: itemClass, service: service, account: query.account)
            }
            self = .share(
                vault: try vault(), socket: try socket(), grant: ShareGrant(scope: scope, readWrite: readWrite != nil), lifetime: lifetime,
                credential: try credential())
        case .unshare: self = .unshare(socket: try socket())
        case .token: self = .token(vault: try vault(), profile: try profile(), refused: try text(.refused))
        case .keepLogin:
            guard let login = try message.single(Tag.login.rawValue), !login.isEmpty else { throw AgentProtocolError("a login to keep needs its session") }
            self = .keepLogin(vault: try vault(), profile: try profile(), login: SecureBytes(copying: login))
        case .endLogin: self = .endLogin(vault: try vault(), profile: try profile())
        case .helperGet:
            guard let helperByte = try message.single(Tag.helper.rawValue), helperByte.count == 1,
                  let helper = CredentialHelperKind(rawValue: helperByte[0]),
                  let input = try message.single(Tag.helperInput.rawValue)
            else { throw AgentProtocolError("a helper's get names the helper and carries its input") }
            self = .helperGet(vault: try vault(), helper: helper, input: SecureBytes(copying: input))
        case .listing: self = .listing(vault: try vault(), query: try query())
        }
    }

    /// Whether `profile` can name a brokered login: 1 to 64 letters, digits, `.`, `_` or `-`
    /// (``OpenIDClient``'s profiles).
    package static func isValidProfile(_ profile: String) -> Bool {
        (1...64).contains(profile.utf8.count) && profile.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x5F, 0x2D].contains($0)
        }
    }

    /// An item's identity on the wire: `class || u32be(len) || service || u32be(len) || account`.
    package static func encode(_ id: ItemID) -> [UInt8] {
        AgentItemName.encode(itemClass: id.itemClass.rawValue, service: id.service, account: id.account)
    }

    static func decodeID(_ bytes: [UInt8]) -> ItemID? {
        guard let first = bytes.first, let itemClass = ItemClass(rawValue: first), bytes.count >= 5 else { return nil }
        let serviceLength = Int(readUInt32(bytes, at: 1))
        guard bytes.count - 5 >= serviceLength, bytes.count - 5 - serviceLength >= 4 else { return nil }
        let accountStart = 5 + serviceLength + 4
        let accountLength = Int(readUInt32(bytes, at: 5 + serviceLength))
        guard bytes.count - accountStart == accountLength,
              let service = String(validating: bytes[5..<(5 + serviceLength)], as: UTF8.self),
              let account = String(validating: bytes[accountStart...], as: UTF8.self)
        else { return nil }
        return ItemID(itemClass: itemClass, service: service, account: account)
    }

    /// `u32be(len(name)) || name || value`.
    static func decodePair(_ bytes: [UInt8]) -> (String, String)? {
        guard bytes.count >= 4 else { return nil }
        let nameLength = Int(readUInt32(bytes, at: 0))
        guard bytes.count - 4 >= nameLength,
              let name = String(validating: bytes[4..<(4 + nameLength)], as: UTF8.self),
              let value = String(validating: bytes[(4 + nameLength)...], as: UTF8.self)
        else { return nil }
        return (name, value)
    }
}

/// A credential an `unlock` hands the agent, which unlocks the vault with it and forgets it.
package enum AgentCredential: Sendable {
    case passphrase(SecureBytes)
    case key(SecureBytes)
    case keyFile(String)

    var kind: UInt8 {
        switch self {
        case .passphrase: 1
        case .key: 2
        case .keyFile: 3
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .passphrase(let secret), .key(let secret): secret.withUnsafeBytes { Array($0) }
        case .keyFile(let path): Array(path.utf8)
        }
    }

    init?(kind: UInt8, bytes: [UInt8]) {
        switch kind {
        case 1: self = .passphrase(SecureBytes(copying: bytes))
        case 2: self = .key(SecureBytes(copying: bytes))
        case 3:
            guard let path = String(validating: bytes, as: UTF8.self), path.hasPrefix("/") else { return nil }
            self = .keyFile(path)
        default: return nil
        }
    }

    /// The vault credential it stands for.
    package var vaultCredential: VaultCredential {
        get throws(CofferError) {
            switch self {
            case .passphrase(let bytes): try .passphrase(utf8: bytes)
            case .key(let key): .key(key)
            case .keyFile(let path): .keyFile(URL(fileURLWithPath: path))
            }
        }
    }
}
