import CofferAgentWire
import CofferBase
import FoundationEssentials

/// What the agent answers (docs/agent.md, section 4).
package enum AgentReply: Sendable {
    /// The request is done and has nothing to report (set, unlock, lock, stop).
    case done
    /// Ping and status: the agent's pid, the vaults it holds unlocked, those that
    /// `agent start --hold` could not open, and how its Secret Service stands (`nil`: it has none).
    case agent(pid: Int32, vaults: [HeldVaultStatus], failures: [HoldFailure] = [], secretService: SecretServiceStatus? = nil)
    case item(Item?)
    case secret(Data?)
    /// A credential helper's `get` that fails as the helper reports it: what it writes on stdout
    /// and its exit status (not 0).
    case reported(Data, exitStatus: UInt8)
    case count(Int)
    /// Items with empty secrets; `next`, when the listing goes on past them: the item to ask
    /// after (``ItemPage``).
    case items([ItemAttributes], next: ItemID? = nil)
    /// The agent does not hold that vault unlocked.
    case notHeld
    case failure(CofferError)
    /// A token request's access token.
    case token(BrokeredToken)
    /// Why a token request got no token.
    case tokenFailure(TokenFailure)

    typealias Kind = AgentReplyKind
    typealias Tag = AgentReplyTag

    package var message: AgentMessage {
        func ok(_ fields: [(Tag, [UInt8])]) -> AgentMessage {
            AgentMessage(kind: Kind.ok.rawValue, fields: fields.map { AgentMessage.Field($0.0.rawValue, $0.1) })
        }
        switch self {
        case .done: return ok([])
        case .agent(let pid, let vaults, let failures, let secretService):
            return ok(
                [(.agent, bigEndian(UInt32(bitPattern: pid)) + bigEndian(UInt32(AgentMessage.version)))]
                    + vaults.map { (.heldVault, $0.encoded) } + failures.map { (.holdFailure, $0.encoded) }
                    + (secretService.map { [(.secretService, [$0.rawValue])] } ?? []))
        case .item(let item):
            return ok(item.map { [(.record, ItemRecord.encode($0.attributes, secret: $0.secret))] } ?? [])
        case .secret(let secret): return ok(secret.map { [(.secret, Array($0))] } ?? [])
        case .reported(let output, let exitStatus): return ok([(.secret, Array(output)), (.exitStatus, [exitStatus])])
        case .count(let count): return ok([(.count, bigEndian(UInt64(count)))])
        case .items(let items, let next):
            return ok(items.map { (.record, ItemRecord.encode($0, secret: Data())) } + (next.map { [(.next, AgentRequest.encode($0))] } ?? []))
        case .notHeld: return AgentMessage(kind: Kind.notHeld.rawValue)
        case .token(let token):
            return ok([(.accessToken, Array(token.value.utf8)), (.tokenTerms, token.encodedTerms)]
                + (token.scope.map { [(.scope, Array($0.utf8))] } ?? []) + token.apiOrigins.map { (.apiOrigin, Array($0.utf8)) })
        case .tokenFailure(let failure):
            return AgentMessage(kind: Kind.tokenFailure.rawValue, fields: [
                AgentMessage.Field(Tag.code.rawValue, [failure.code]), AgentMessage.Field(Tag.text.rawValue, Array(failure.text.utf8)),
            ])
        case .failure(let error):
            let (code, text, path) = ErrorCoding.encode(error)
            var fields = [AgentMessage.Field(Tag.code.rawValue, [code]), AgentMessage.Field(Tag.text.rawValue, Array(text.utf8))]
            if let path { fields.append(AgentMessage.Field(Tag.path.rawValue, Array(path.utf8))) }
            return AgentMessage(kind: Kind.error.rawValue, fields: fields)
        }
    }

    /// Reads the reply to `request`.
    package init(_ message: AgentMessage, to request: AgentRequest) throws(AgentProtocolError) {
        switch Kind(rawValue: message.kind) {
        case .notHeld?:
            self = .notHeld
        case .error?:
            guard let code = try message.single(Tag.code.rawValue), code.count == 1 else { throw AgentProtocolError("an error without a code") }
            let text = try message.single(Tag.text.rawValue).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let path = try message.single(Tag.path.rawValue).map { String(decoding: $0, as: UTF8.self) }
            self = .failure(ErrorCoding.decode(code: code[0], text: text, path: path))
        case .tokenFailure?:
            guard let code = try message.single(Tag.code.rawValue), code.count == 1,
                  let failure = TokenFailure(code: code[0], text: try message.single(Tag.text.rawValue).map { String(decoding: $0, as: UTF8.self) } ?? "")
            else { throw AgentProtocolError("a token failure without a known code") }
            self = .tokenFailure(failure)
        case .ok?:
            self = try Self.success(message, to: request)
        case nil:
            throw AgentProtocolError("unknown reply \(message.kind)")
        }
    }

    private static func success(_ message: AgentMessage, to request: AgentRequest) throws(AgentProtocolError) -> AgentReply {
        func record(_ bytes: [UInt8]) throws(AgentProtocolError) -> ItemRecord.Decoded {
            guard let decoded = try? ItemRecord.decode(bytes) else { throw AgentProtocolError("a malformed record") }
            return decoded
        }
        switch request {
        case .ping, .status, .identify:
            guard let agent = try message.single(Tag.agent.rawValue), agent.count == 8 else { throw AgentProtocolError("no agent field") }
            let vaults = try message.all(Tag.heldVault.rawValue).map { bytes throws(AgentProtocolError) in
                guard let status = HeldVaultStatus(encoded: bytes) else { throw AgentProtocolError("a malformed held vault") }
                return status
            }
            let failures = try message.all(Tag.holdFailure.rawValue).map { bytes throws(AgentProtocolError) in
                guard let failure = HoldFailure(encoded: bytes) else { throw AgentProtocolError("a malformed hold failure") }
                return failure
            }
            let secretService = try message.single(Tag.secretService.rawValue).map { bytes throws(AgentProtocolError) in
                guard bytes.count == 1, let status = SecretServiceStatus(rawValue: bytes[0]) else {
                    throw AgentProtocolError("a malformed Secret Service status")
                }
                return status
            }
            return .agent(pid: Int32(bitPattern: readUInt32(agent, at: 0)), vaults: vaults, failures: failures, secretService: secretService)
        case .stop, .unlock, .lock, .set, .holds, .share, .unshare, .keepLogin:
            return .done
        case .token:
            guard let value = try message.single(Tag.accessToken.rawValue), let terms = try message.single(Tag.tokenTerms.rawValue),
                  let token = BrokeredToken(
                    value: value, terms: terms, scope: try message.single(Tag.scope.rawValue), apiOrigins: message.all(Tag.apiOrigin.rawValue))
            else { throw AgentProtocolError("a malformed token") }
            return .token(token)
        case .item:
            guard let bytes = try message.single(Tag.record.rawValue) else { return .item(nil) }
            let decoded = try record(bytes)
            return .item(decoded.item)
        case .helperGet:
            let output = try message.single(Tag.secret.rawValue).map { Data($0) }
            guard let status = try message.single(Tag.exitStatus.rawValue) else { return .secret(output) }
            guard status.count == 1, status[0] != 0, let output else { throw AgentProtocolError("a malformed helper report") }
            return .reported(output, exitStatus: status[0])
        case .secret, .listing:
            return .secret(try message.single(Tag.secret.rawValue).map { Data($0) })
        case .remove, .removeAll, .endLogin:
            guard let bytes = try message.single(Tag.count.rawValue), let count = readInteger(bytes, as: UInt64.self) else {
                throw AgentProtocolError("no count")
            }
            return .count(Int(clamping: count))
        case .items:
            let items = try message.all(Tag.record.rawValue).map { bytes throws(AgentProtocolError) in try record(bytes).attributes }
            return .items(items, next: try message.single(Tag.next.rawValue).map(ItemPage.cursor))
        }
    }
}

/// A vault the agent holds unlocked, as status reports it.
package struct HeldVaultStatus: Sendable, Hashable {
    package let path: String
    package let vaultID: String
    package let unlockedAt: Date
    /// `nil` for a vault held until `lock` or the agent stops (`agent start --hold`).
    package let expiresAt: Date?
    package let lastUse: Date

    /// On the wire, "held until stopped" is the largest expiry.
    private static let untilStopped = Int64.max

    package init(path: String, vaultID: String, unlockedAt: Date, expiresAt: Date?, lastUse: Date) {
        self.path = path
        self.vaultID = vaultID
        self.unlockedAt = unlockedAt
        self.expiresAt = expiresAt
        self.lastUse = lastUse
    }

    var encoded: [UInt8] {
        let id = stride(from: 0, to: vaultID.count, by: 2).compactMap { offset -> UInt8? in
            let start = vaultID.index(vaultID.startIndex, offsetBy: offset)
            return UInt8(vaultID[start..<vaultID.index(start, offsetBy: 2)], radix: 16)
        }
        func millis(_ date: Date) -> [UInt8] { bigEndian(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        let expiry = expiresAt.map(millis) ?? bigEndian(Self.untilStopped)
        return bigEndian(UInt32(path.utf8.count)) + Array(path.utf8) + id + millis(unlockedAt) + expiry + millis(lastUse)
    }

    init?(encoded bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        let pathLength = Int(readUInt32(bytes, at: 0))
        guard bytes.count == 4 + pathLength + 16 + 24, let path = String(validating: bytes[4..<(4 + pathLength)], as: UTF8.self) else { return nil }
        let rest = Array(bytes[(4 + pathLength)...])
        func millis(_ offset: Int) -> Int64 { readInteger(Array(rest[offset..<(offset + 8)]), as: Int64.self) ?? 0 }
        func date(_ offset: Int) -> Date { Date(timeIntervalSince1970: Double(millis(offset)) / 1000) }
        self.init(
            path: path, vaultID: Hex.encode(rest.prefix(16)),
            unlockedAt: date(16), expiresAt: millis(24) == Self.untilStopped ? nil : date(24), lastUse: date(32))
    }
}

/// `CofferError` on the wire: a code, a text and sometimes a path.
enum ErrorCoding {
    static func encode(_ error: CofferError) -> (UInt8, String, String?) {
        switch error {
        case .itemNotFound: (1, "", nil)
        case .locked: (2, "", nil)
        case .storageUnavailable(let reason): (3, reason, nil)
        case .wrongPassphrase: (4, "", nil)
        case .wrongKey: (5, "", nil)
        case .integrityFailure: (6, "", nil)
        case .corruptVault(let reason): (7, reason, nil)
        case .insecurePermissions(let path, let reason): (8, reason, path)
        case .unsupportedFormatVersion(let version): (9, "\(version)", nil)
        case .secretTooLarge(let size, let limit): (10, "\(size) \(limit)", nil)
        case .invalidArgument(let reason): (11, reason, nil)
        case .notUTF8: (12, "", nil)
        case .vaultNotFound(let path): (13, "", path)
        case .vaultExists(let path): (14, "", path)
        case .secretServiceUnavailable(let reason): (15, reason, nil)
        case .timeout: (16, "", nil)
        case .machineKey(let failure): (18, MachineKeyCoding.encode(failure), nil)
        case .accessDenied(let program): (19, "", program)
        case .agentUnavailable(let reason): (20, reason, nil)
        }
    }

    static func decode(code: UInt8, text: String, path: String?) -> CofferError {
        switch code {
        case 1: return .itemNotFound
        case 2: return .locked
        case 3: return .storageUnavailable(reason: text)
        case 4: return .wrongPassphrase
        case 5: return .wrongKey
        case 6: return .integrityFailure
        case 7: return .corruptVault(reason: text)
        case 8: return .insecurePermissions(path: path ?? "", reason: text)
        case 9: return .unsupportedFormatVersion(Int(text) ?? 0)
        case 10:
            let numbers = text.split(separator: " ").compactMap { Int($0) }
            guard numbers.count == 2 else { return .storageUnavailable(reason: "the agent: \(text)") }
            return .secretTooLarge(size: numbers[0], limit: numbers[1])
        case 11: return .invalidArgument(reason: text)
        case 12: return .notUTF8
        case 13: return .vaultNotFound(path: path ?? "")
        case 14: return .vaultExists(path: path ?? "")
        case 15: return .secretServiceUnavailable(reason: text)
        case 16: return .timeout
        case 19: return .accessDenied(program: path ?? "")
        case 20: return .agentUnavailable(reason: text)
        case 18: return MachineKeyCoding.decode(text).map { .machineKey($0) } ?? .storageUnavailable(reason: "the agent: \(text)")
        default: return .storageUnavailable(reason: "the agent: \(text.isEmpty ? "protocol error" : text)")
        }
    }
}

/// ``MachineKeyFailure`` in an error's text: a word for the case, a space, and its detail.
enum MachineKeyCoding {
    static func encode(_ failure: MachineKeyFailure) -> String {
        switch failure {
        case .systemdCredsMissing: "missing"
        case .notThisMachine: "elsewhere"
        case .boundElsewhere: "name"
        case .tpmUnreachable(let reason): "unreachable " + reason
        case .timedOut(let seconds): "timeout \(seconds)"
        case .failed(let reason): "failed " + reason
        case .serviceCredentialMissing(let name): "credential " + name
        }
    }

    static func decode(_ text: String) -> MachineKeyFailure? {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let detail = parts.count == 2 ? String(parts[1]) : ""
        switch parts.first {
        case "missing": return .systemdCredsMissing
        case "elsewhere": return .notThisMachine
        case "name": return .boundElsewhere
        case "unreachable": return .tpmUnreachable(reason: detail)
        case "timeout": return Int(detail).map { .timedOut(seconds: $0) }
        case "failed": return .failed(reason: detail)
        case "credential": return .serviceCredentialMissing(name: detail)
        default: return nil
        }
    }
}

extension AgentReply {
    /// This reply when it is an answer: an `error` reply is thrown, and `not held` is
    /// ``CofferError/locked``.
    package func succeeded() throws(CofferError) -> AgentReply {
        switch self {
        case .failure(let error): throw error
        case .notHeld: throw .locked
        default: return self
        }
    }
}
