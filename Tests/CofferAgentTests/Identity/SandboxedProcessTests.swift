import CofferAgent
import Coffer
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// Real processes in a systemd service's cgroup, a snap's, and a Flatpak-style sandbox carry
/// that in their identity. No systemd, snapd or Flatpak runs here: the tests make what each
/// leaves in the kernel (a cgroup named for the unit; a mount namespace whose root holds
/// `.flatpak-info`, as bubblewrap makes for Flatpak), then resolve the process by PID, as the
/// D-Bus side does.
final class SandboxedProcessTests: XCTestCase {
    let folder = TemporaryFolder()

    /// The unified cgroup hierarchy's mount point (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified`
    /// on a hybrid system like this one).
    func unifiedHierarchy() throws -> String {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        guard let line = mounts.split(separator: "\n").first(where: { $0.split(separator: " ").dropFirst(2).first == "cgroup2" }) else {
            throw MissingPrerequisite.error("no cgroup2 file system is mounted")
        }
        return String(line.split(separator: " ")[1])
    }

    /// Runs a shell that waits on stdin in a new cgroup `name` (removed after), and resolves it.
    func callerInCgroup(_ name: String) throws -> Caller {
        let group = try unifiedHierarchy() + "/" + name
        guard mkdir(group, 0o755) == 0 else {
            throw MissingPrerequisite.error("cannot make the cgroup \(group): \(String(cString: strerror(errno))) (root with a writable cgroup2 is needed)")
        }
        defer { rmdir(group) }
        let shell = try ChildProcess.start("/bin/sh", ["-c", "echo ready; read line"], inputs: [0: nil])
        defer { shell.stop() }
        XCTAssertTrue(shell.waitForLine("ready", timeout: .seconds(10)))
        try "\(shell.pid)".write(toFile: group + "/cgroup.procs", atomically: false, encoding: .utf8)
        return try CallerResolver().resolve(pid: shell.pid, uid: 0)
    }

    /// A process in a cgroup named for a service is in that systemd unit.
    func testAProcessInAServiceCgroupHasItsUnit() throws {
        let unit = "coffer-test-\(getpid()).service"
        let caller = try callerInCgroup(unit)
        XCTAssertEqual(caller.program.systemdUnit, unit)
        XCTAssertNil(caller.program.sandboxApp)
        XCTAssertEqual(caller.program.executablePath, "/bin/sh".realPathBytes)
    }

    /// A process in a snap's scope is that snap (and in no unit: a scope's name changes).
    func testAProcessInASnapScopeIsThatSnap() throws {
        let caller = try callerInCgroup("snap.coffer-test.shell-\(getpid()).scope")
        XCTAssertEqual(caller.program.sandboxApp, "snap:coffer-test")
        XCTAssertNil(caller.program.systemdUnit)
    }

    /// A process whose root (a mount namespace of its own, `pivot_root` into a tmpfs with the
    /// system's `/usr` bound in, as bubblewrap builds a Flatpak sandbox) holds `.flatpak-info` is
    /// that Flatpak app; its `/usr/bin/dash` is the agent's own file, so the path stays.
    func testAProcessInAFlatpakStyleSandboxIsThatApp() throws {
        for tool in ["/usr/bin/unshare", "/usr/sbin/pivot_root", "/usr/bin/mount"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw MissingPrerequisite.error("\(tool) (util-linux) is needed to build a sandbox")
        }
        let root = folder.file("sandbox").path, info = folder.file("flatpak-info").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        try "[Application]\nname=org.example.CofferTest\nruntime=runtime/org.example.Platform/x86_64/1\n".write(toFile: info, atomically: false, encoding: .utf8)
        let build = """
            set -e
            mount -t tmpfs tmpfs "$1"
            cd "$1"
            for d in usr bin lib lib64 sbin; do
              if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$d"
              elif [ -d "/$d" ]; then mkdir "$d"; mount --rbind "/$d" "$d"; fi
            done
            cp "$2" .flatpak-info
            mkdir .old
            pivot_root . .old
            exec /bin/sh -c 'echo ready; read line'
            """
        let sandboxed = try ChildProcess.start("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", build, "sh", root, info], inputs: [0: nil])
        defer { sandboxed.stop() }
        guard sandboxed.waitForLine("ready", timeout: .seconds(10)) else {
            throw MissingPrerequisite.error("the sandbox could not be built: \(sandboxed.stop()?.stderrText ?? "")")
        }
        let caller = try CallerResolver().resolve(pid: sandboxed.pid, uid: 0)
        XCTAssertEqual(caller.program.sandboxApp, "flatpak:org.example.CofferTest")
        XCTAssertEqual(caller.program.executablePath, "/bin/sh".realPathBytes)
        XCTAssertNil(caller.program.script)
    }
}
