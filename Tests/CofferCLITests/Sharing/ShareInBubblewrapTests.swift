import CofferTestSupport
import Foundation
import XCTest

/// `coffer agent share` seen from a bubblewrap sandbox that has only the share's socket bound in
/// (with the read-only system folders and Coffer's binaries): no vault file, no agent socket of
/// the user's, no network (docs/security.md, "Sharing with sandboxes and other hosts").
final class ShareInBubblewrapTests: ShareTestCase {
    /// Item X read, item Y and everything else of the user's not found, writes refused while
    /// read-only, no management, and the share ends at unshare and on time.
    func testASandboxReachesOnlyTheGrantedItems() throws {
        try checkShare(socketInside: "/run/share/s.sock", home: "/home/sandbox", try inBubblewrap())
    }

    /// A profile's share: `coffer token --profile` in the sandbox gets the agent's token, and a
    /// refreshed one after it expires; nothing else (``ShareTestCase/checkProfileShare(socketInside:home:file:line:_:)``).
    func testASandboxGetsOnlyTheSharedProfilesTokens() async throws {
        try await checkProfileShare(socketInside: "/run/share/s.sock", home: "/home/sandbox", try inBubblewrap())
    }

    /// Runs a command in a new sandbox with the share's folder bound at /run/share.
    private func inBubblewrap() throws -> Inside {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else {
            throw MissingPrerequisite.error("bwrap is not installed (Debian package bubblewrap; scripts/bootstrap.sh test)")
        }
        let binaries = BuiltProducts.folder.path
        let shareFolder = shareFolder.path
        return { command, environment, stdin in
            var arguments = [
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                "--ro-bind", binaries, "/opt/coffer", "--bind", shareFolder, "/run/share",
                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session", "--clearenv",
            ]
            if FileManager.default.fileExists(atPath: "/opt/swift") { arguments += ["--ro-bind", "/opt/swift", "/opt/swift"] }
            for (name, value) in environment { arguments += ["--setenv", name, value] }
            arguments += ["--setenv", "PATH", "/opt/coffer:/usr/bin:/bin", "/opt/coffer/\(command[0])"] + command.dropFirst()
            return try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/bwrap"), arguments, environment: [:], stdin: stdin)
        }
    }
}
