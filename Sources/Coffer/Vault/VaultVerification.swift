import CofferBase
import FoundationEssentials

/// What ``Vault/verify()`` found: every problem, by record or key slot.
public struct VaultVerification: Sendable, Hashable {
    /// One problem in a vault.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// SQLite's integrity check, or reading the file, reported damage to the database
        /// itself. The text is SQLite's and names pages, tables and rows, never their contents.
        case database(String)
        /// The tables or the vault row are not the format's.
        case structure(String)
        /// A key slot breaks the format's rules.
        case keySlot(String)
        /// A record fails authentication: it was edited, moved between rows or copied from
        /// another vault. Identified by the first 16 hex digits of its row key.
        case unreadableRecord(rowKey: String)
        /// A record opens but its plaintext breaks the format's rules.
        case malformedRecord(rowKey: String)
        /// A record opens and decodes, but its names do not give its row key.
        case misplacedRecord(rowKey: String, item: ItemID)
        /// The attribute index (format version 2) lacks rows for sound items, or holds rows
        /// that name no item or attributes the item does not have. Searches by attribute may
        /// then miss the items concerned; they never return a wrong one.
        case attributeIndex(missingRows: Int, staleRows: Int)
        /// The access policy (format version 3) is missing or does not open: the vault's access
        /// rules are unknown until it is set anew.
        case accessPolicy(String)
        /// An audit-log entry (format version 3) fails authentication (edited, moved, reordered
        /// or copied) or breaks the format's rules. Identified by its sequence number.
        case unreadableAuditEntry(sequence: Int64)

        public var description: String {
            switch self {
            case .database(let text): "database: \(text)"
            case .structure(let text): "structure: \(text)"
            case .keySlot(let text): "key slot: \(text)"
            case .unreadableRecord(let rowKey): "record \(rowKey): fails authentication (edited, moved or copied)"
            case .malformedRecord(let rowKey): "record \(rowKey): breaks the format's rules"
            case .misplacedRecord(let rowKey, let item): "record \(rowKey): holds \(item), which belongs in another row"
            case .attributeIndex(let missing, let stale): "attribute index: \(missing) row(s) missing, \(stale) stale"
            case .accessPolicy(let text): "access policy: \(text)"
            case .unreadableAuditEntry(let sequence): "audit entry \(sequence): fails authentication or breaks the format's rules"
            }
        }
    }

    /// Every problem found, database problems first, then records in row-key order, then the
    /// access policy and the audit log's entries in sequence order.
    public let problems: [Problem]
    /// The records that are sound, expired ones included.
    public let soundRecords: Int

    /// Whether nothing is wrong.
    public var isClean: Bool { problems.isEmpty }
}

extension Vault {
    /// Checks the whole vault: SQLite's integrity check over every page, the tables, every key
    /// slot, every record (it must open, follow the format's rules, and sit in the row its
    /// names give), and in format version 3 the access policy and every audit-log entry. The
    /// vault must be unlocked. Reads only.
    ///
    /// A point lookup (``secret(for:)``) cannot prove that an item is absent: damage to the
    /// file can hide a row, and the lookup then reports it missing. This can: a clean report
    /// means every row the file holds is sound.
    public func verify() throws(CofferError) -> VaultVerification {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.readTransaction { () throws(CofferError) in
                try Self.verifyKeyCheck(connection, keys)
                var problems = Self.databaseProblems(connection)
                let version = try Self.formatVersion(connection)
                do throws(CofferError) { try VaultSchema.check(connection, version: version) } catch { problems.append(.structure(error.reasonText)) }
                do throws(CofferError) { _ = try SlotRow.all(connection) } catch { problems.append(.keySlot(error.reasonText)) }
                var sound: [[UInt8]: ItemAttributes] = [:]
                var unsound: Set<[UInt8]> = []
                var recordProblems: [(rowKey: [UInt8], problem: VaultVerification.Problem)] = []
                do throws(CofferError) {
                    try connection.with("SELECT row_key, record FROM items") { statement throws(CofferError) in
                        while try statement.step() {
                            let rowKey = statement.blob(at: 0)
                            switch recordCheck(rowKey: rowKey, sealed: statement.blob(at: 1), keys) {
                            case .sound(let attributes): sound[rowKey] = attributes
                            case .problem(let problem):
                                unsound.insert(rowKey)
                                recordProblems.append((rowKey, problem))
                            }
                        }
                    }
                } catch {
                    problems.append(.database("reading the records stopped: \(error.reasonText)"))
                }
                problems += recordProblems.sorted { $0.rowKey.lexicographicallyPrecedes($1.rowKey) }.map(\.problem)
                if version >= VaultFormat.attributeIndexVersion,
                   let problem = attributeIndexProblem(sound: sound, unsound: unsound, connection, keys) {
                    problems.append(problem)
                }
                if version >= VaultFormat.accessVersion { problems += accessProblems(connection, keys) }
                return VaultVerification(problems: problems, soundRecords: sound.count)
            }
        }
    }

    /// The access policy's problem, if any, then each audit entry that does not open or decode.
    private func accessProblems(_ connection: SQLiteConnection, _ keys: VaultKeys) -> [VaultVerification.Problem] {
        var problems: [VaultVerification.Problem] = []
        do throws(CofferError) { _ = try readPolicy(connection, keys) } catch { problems.append(.accessPolicy(error.reasonText)) }
        do {
            try connection.with("SELECT sequence, entry FROM audit_log ORDER BY sequence") { statement throws(CofferError) in
                while try statement.step() {
                    let sequence = statement.int64(at: 0)
                    if (try? openAuditEntry(statement.blob(at: 1), sequence: sequence, keys)) == nil {
                        problems.append(.unreadableAuditEntry(sequence: sequence))
                    }
                }
            }
        } catch {
            problems.append(.database("reading the audit log stopped: \(error.reasonText)"))
        }
        return problems
    }

    /// SQLite's `integrity_check` (up to 100 findings), or why it could not run.
    private static func databaseProblems(_ connection: SQLiteConnection) -> [VaultVerification.Problem] {
        do {
            let lines = try connection.with("PRAGMA integrity_check(100)") { statement throws(CofferError) in
                var lines: [String] = []
                while try statement.step() { lines.append(statement.text(at: 0) ?? "") }
                return lines
            }
            return lines == ["ok"] ? [] : lines.map(VaultVerification.Problem.database)
        } catch {
            return [.database("the integrity check could not run: \(error.reasonText)")]
        }
    }

    /// What checking one record found.
    private enum RecordCheck {
        case sound(ItemAttributes)
        case problem(VaultVerification.Problem)
    }

    /// A sound record's attributes, or its problem.
    private func recordCheck(rowKey: [UInt8], sealed: [UInt8], _ keys: VaultKeys) -> RecordCheck {
        let label = VaultFormat.hexIdentifier(Array(rowKey.prefix(8)))
        guard var plaintext = openSealed(sealed, rowKey: rowKey, keys) else { return .problem(.unreadableRecord(rowKey: label)) }
        defer { SecretMemory.zero(&plaintext) }
        guard let decoded = try? ItemRecord.decode(plaintext) else { return .problem(.malformedRecord(rowKey: label)) }
        let attributes = decoded.attributes
        guard keys.rowKey(forIndexInput: decoded.indexInput) == rowKey else {
            return .problem(.misplacedRecord(rowKey: label, item: attributes.id))
        }
        return .sound(attributes)
    }

    /// Compares the attribute index with the rows the sound records need. Rows of records that
    /// do not open cannot be judged and are left out.
    private func attributeIndexProblem(
        sound: [[UInt8]: ItemAttributes], unsound: Set<[UInt8]>, _ connection: SQLiteConnection, _ keys: VaultKeys
    ) -> VaultVerification.Problem? {
        var expected = Set<[UInt8]>()
        for (rowKey, attributes) in sound {
            for token in AttributeIndex.tokens(of: attributes, keys) { expected.insert(token + rowKey) }
        }
        var stale = 0
        do {
            try connection.with("SELECT token, row_key FROM attribute_index") { statement throws(CofferError) in
                while try statement.step() {
                    let rowKey = statement.blob(at: 1)
                    guard !unsound.contains(rowKey) else { continue }
                    if expected.remove(statement.blob(at: 0) + rowKey) == nil { stale += 1 }
                }
            }
        } catch {
            return .database("reading the attribute index stopped: \(error.reasonText)")
        }
        return expected.isEmpty && stale == 0 ? nil : .attributeIndex(missingRows: expected.count, staleRows: stale)
    }
}

extension CofferError {
    /// The reason a corruption or storage error gives, or its description.
    var reasonText: String {
        switch self {
        case .corruptVault(let reason), .storageUnavailable(let reason): reason
        default: description
        }
    }
}
