import CofferTestSupport
import Foundation
import XCTest

/// `coffer agent share` seen from a podman container whose root is an empty folder with the
/// read-only system folders, Coffer's binaries and the share's socket folder mounted in, and no
/// network (docs/security.md, "Sharing with sandboxes and other hosts"). Where podman is
/// installed but cannot run a container on this machine, the test says why and skips.
final class ShareInPodmanTests: ShareTestCase {
    /// Item X read, item Y and everything else of the user's not found, writes refused while
    /// read-only, no management, and the share ends at unshare and on time.
    func testAContainerReachesOnlyTheGrantedItems() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/podman") else {
            throw MissingPrerequisite.error("podman is not installed (Debian package podman; scripts/bootstrap.sh test)")
        }
        let root = folder.file("rootfs")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (link, target) in [("lib", "usr/lib"), ("lib64", "usr/lib64"), ("bin", "usr/bin")] {
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(link).path, withDestinationPath: target)
        }
        var mounts = ["/usr:/usr:ro", "/etc:/etc:ro", "\(BuiltProducts.folder.path):/opt/coffer:ro"]
        if FileManager.default.fileExists(atPath: "/opt/swift") { mounts.append("/opt/swift:/opt/swift:ro") }
        func podman(_ command: [String], _ environment: [String: String], _ extraMounts: [String], stdin: Data) throws -> ChildProcess.Output {
            let arguments = ["run", "--rm", "-i", "--network", "none", "--rootfs", root.path]
                + (mounts + extraMounts).flatMap { ["-v", $0] }
                + environment.merging(["PATH": "/opt/coffer:/usr/bin:/bin"]) { $1 }.flatMap { ["--env", "\($0)=\($1)"] }
                + command
            return try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/podman"), arguments, environment: [:], stdin: stdin)
        }
        let trial = try podman(["/usr/bin/true"], [:], [], stdin: Data())
        guard trial.status == 0 else {
            let reason = trial.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
            print("ShareInPodmanTests: podman cannot run a container on this machine, so the test skips: \(reason)")
            throw XCTSkip("podman cannot run a container on this machine: \(reason)")
        }
        try checkShare(socketInside: "/run/share/s.sock", home: "/tmp") { command, environment, stdin in
            try podman(["/opt/coffer/\(command[0])"] + command.dropFirst(), environment, ["\(self.shareFolder.path):/run/share"], stdin: stdin)
        }
    }
}
