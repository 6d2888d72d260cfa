import Glibc

/// The first 100 bytes of a vault file, SQLite's database header, read through a checked
/// descriptor before SQLite opens the file: a file that is refused is never touched by SQLite,
/// so it stays byte for byte as it was.
struct VaultFileHeader {
    static let length = 100
    private static let magic = Array("SQLite format 3".utf8) + [0]

    let bytes: [UInt8]

    /// Reads the header of the private file at `path` (not following a symbolic link).
    static func read(path: String) throws(CofferError) -> VaultFileHeader {
        let descriptor = try FileSecurity.openPrivateFile(at: path, missing: .vaultNotFound(path: path))
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: length)
        var count = 0
        while count < length {
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + count, length - count, off_t(count)) }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { throw .storageUnavailable(reason: "cannot read \(path): \(describeErrno())") }
            if read == 0 { break }
            count += read
        }
        return VaultFileHeader(bytes: Array(bytes.prefix(count)))
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
