/// The first 100 bytes of a vault file, SQLite's database header, read through the descriptor
/// SQLite opened before any statement runs: a file that is refused is never read or written by
/// SQL, so it stays byte for byte as it was. No descriptor of Coffer's own is opened on the file,
/// because closing it would drop every POSIX lock the process holds there, SQLite's included
/// (those of another open `Vault` on the same file).
struct VaultFileHeader {
    static let length = 100
    private static let magic = Array("SQLite format 3".utf8) + [0]

    let bytes: [UInt8]

    /// Reads the header of the file `connection` has open, before any statement runs on it.
    static func read(from connection: SQLiteConnection) throws(CofferError) -> VaultFileHeader {
        VaultFileHeader(bytes: try connection.fileStart(length: length))
    }

    /// Checks that this is a SQLite database of a Coffer format version this code reads (docs/vault-format.md, 2).
    func check() throws(CofferError) {
        guard !bytes.isEmpty else { throw .corruptVault(reason: "not a Coffer vault") }
        guard bytes.count == Self.length, bytes.starts(with: Self.magic) else {
            throw .corruptVault(reason: "the file is not a valid SQLite database")
        }
        guard applicationID == VaultFormat.applicationID else { throw .corruptVault(reason: "not a Coffer vault") }
        try VaultFormat.checkVersion(Int64(userVersion))
    }

    /// `PRAGMA application_id`: bytes 68–71.
    var applicationID: Int32 { Int32(bitPattern: uint32(at: 68)) }
    /// `PRAGMA user_version`: bytes 60–63.
    var userVersion: UInt32 { uint32(at: 60) }
    /// Whether the file is in WAL mode: the read and write versions (bytes 18 and 19) are 2.
    var isWAL: Bool { bytes[18] == 2 && bytes[19] == 2 }

    private func uint32(at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
