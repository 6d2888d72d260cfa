import CLinux
import CofferBase
import Glibc

/// The files this process has open through SQLite (a vault, its -wal and its -shm), by device
/// and inode. Closing any descriptor of a file drops every POSIX lock the process holds on it,
/// SQLite's included; the last connection out then takes the -wal for its own and removes it, and
/// writes are lost. So a file Coffer opens by a path someone gave it (a key file, a caller's
/// script, a program to grant access to) is asked about here first, and refused when it is one
/// of these (``FileSecurity/openRegularFile(at:followingLinks:)``).
package enum OpenDatabaseFiles {
    /// A file's device and inode.
    package struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// How many connections hold each file.
    private static let held = Guarded<[Identity: Int]>([:])

    static func add(_ identities: Set<Identity>) {
        held.withLock { for identity in identities { $0[identity, default: 0] += 1 } }
    }

    static func remove(_ identities: Set<Identity>) {
        held.withLock { held in
            for identity in identities {
                let count = (held[identity] ?? 1) - 1
                held[identity] = count > 0 ? count : nil
            }
        }
    }

    /// Whether no connection of this process holds any file.
    package static var isEmpty: Bool { held.withLock { $0.isEmpty } }

    /// Whether a connection of this process holds the file.
    package static func contains(device: UInt64, inode: UInt64) -> Bool {
        held.withLock { $0[Identity(device: device, inode: inode)] != nil }
    }

    /// Opens the regular file at `path` for reading as ``coffer_open_regular`` does, refusing a
    /// file a connection holds (EBUSY); -1 and errno when it opens nothing.
    package static func openRegular(_ path: UnsafePointer<CChar>, followingLinks: Bool) -> Int32 {
        coffer_open_regular(path, followingLinks ? 0 : 1, refusal, isEmpty ? 1 : 0)
    }

    /// The check ``coffer_open_regular`` makes before it opens a file for reading: nonzero refuses it.
    package static let refusal: @convention(c) (UInt64, UInt64) -> Int32 = { device, inode in
        contains(device: device, inode: inode) ? 1 : 0
    }
}
