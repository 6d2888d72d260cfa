import Coffer
import CofferBase
import Glibc

/// Tells which program a peer runs (docs/security.md, "Which program is calling"): from a
/// connected Unix socket (``resolve(socket:)``, or ``PeerProcess/of(socket:kernelPidfd:)`` at
/// accept and ``resolve(_:)`` later) or from the process a D-Bus connection reports
/// (``resolve(pid:uid:)``).
///
/// It reads `/proc/PID/…` (the executable, the command line of an interpreter, the cgroup, a
/// Flatpak's `.flatpak-info`), then checks that the pidfd still names a live process, so
/// that what it read was that process's; and it refuses a process that started after the
/// connection was accepted (a PID reused before the pidfd was taken).
///
/// The program of a process is worked out once, and remembered by (PID, start time) while
/// the process still runs the same executable (and, for an interpreter, the same command
/// line); file digests are remembered by ``FileDigests``. Safe to use from any thread.
package final class CallerResolver: Sendable {
    /// Processes remembered; past this, the oldest are forgotten.
    package static let capacity = 1024

    package let digests: FileDigests
    private let kernelPidfd: Bool
    private let known = Guarded(Known())

    private struct ProcessKey: Hashable {
        let pid: pid_t
        let startTime: UInt64
    }

    private struct Remembered {
        let program: Program
        /// The executable's content when the program was worked out.
        let executable: FileDigests.Key
        /// An interpreter's command line then; `nil` for other programs.
        let commandLine: [UInt8]?
        let order: UInt64
    }

    private struct Known {
        var processes: [ProcessKey: Remembered] = [:]
        var counter: UInt64 = 0
    }

    /// A resolver using `digests` (by default the process's shared ones); with `kernelPidfd`
    /// `false`, a socket's peer is pinned with `pidfd_open` as on kernels before 6.5, even where
    /// `SO_PEERPIDFD` exists.
    package init(digests: FileDigests = .shared, kernelPidfd: Bool = true) {
        self.digests = digests
        self.kernelPidfd = kernelPidfd
    }

    /// The peer of a connection just accepted: to be taken at once, and resolved later (off
    /// the thread that accepts).
    package func peer(ofSocket descriptor: Int32) throws(CallerResolutionError) -> PeerProcess {
        try PeerProcess.of(socket: descriptor, kernelPidfd: kernelPidfd)
    }

    /// The caller at the other end of the connected Unix socket `descriptor`.
    package func resolve(socket descriptor: Int32) throws(CallerResolutionError) -> Caller {
        try resolve(peer(ofSocket: descriptor))
    }

    /// The caller behind a D-Bus connection, from the bus's `ProcessID` and `UnixUserID`.
    package func resolve(pid: pid_t, uid: uid_t) throws(CallerResolutionError) -> Caller {
        try resolve(PeerProcess.of(pid: pid, uid: uid))
    }

    /// The caller `peer` is.
    package func resolve(_ peer: PeerProcess) throws(CallerResolutionError) -> Caller {
        let folder = "/proc/\(peer.pid)"
        guard let stat = ProcFiles.read(folder + "/stat", limit: 4096) else { throw ProgramFile.failure(errno, reading: "stat") }
        guard let startTime = ProcFiles.startTime(stat: stat) else { throw .unreadable("\(folder)/stat has no start time") }
        guard startTime <= peer.acceptedAt else { throw .pidReused }
        guard let status = ProcFiles.read(folder + "/status", limit: 16384) else { throw ProgramFile.failure(errno, reading: "status") }
        guard ProcFiles.effectiveUID(status: status) == peer.uid else { throw .userChanged }
        let program = try program(of: ProcessKey(pid: peer.pid, startTime: startTime), uid: peer.uid)
        // What was read is this process's only if the PID is still its own now.
        let caller = Caller(uid: peer.uid, pid: peer.pid, startTime: startTime, program: program, handle: peer.handle)
        guard caller.isAlive else { throw .ended }
        return caller
    }

    /// Whether ``resolve(_:)`` would work `peer` out without hashing its executable, which for a
    /// program not seen before reads the whole file (up to 1 GiB, about a second): the agent
    /// does that on a thread where it holds up no other client.
    package func resolvesQuickly(_ peer: PeerProcess) -> Bool {
        var info = stat()
        guard stat("/proc/\(peer.pid)/exe", &info) == 0 else { return true }
        return digests.isKnown(info)
    }

    /// The program a process remembered by the resolver runs, while it runs; for tests and
    /// diagnostics.
    package func rememberedProgram(pid: pid_t) -> Program? {
        known.withLock { known in known.processes.filter { $0.key.pid == pid }.max { $0.value.order < $1.value.order }?.value.program }
    }

    // MARK: - Working out the program

    private func program(of process: ProcessKey, uid: uid_t) throws(CallerResolutionError) -> Program {
        let remembered = known.withLock { $0.processes[process] }
        if let remembered, ProgramFile.executableKey(of: process.pid) == remembered.executable,
           remembered.commandLine == nil || remembered.commandLine == commandLine(of: process.pid)
        {
            return remembered.program
        }
        let (executable, executableKey) = try ProgramFile.executable(of: process.pid, uid: uid, digests: digests)
        var script: ProgramFile?
        var scriptName: [UInt8]?
        var interpreterCommandLine: [UInt8]?
        let name = executable.kernelPath.split(separator: UInt8(ascii: "/")).last ?? []
        if let interpreter = Interpreter(executableName: name) {
            let commandLine = commandLine(of: process.pid)
            // Empty while an exec is under way or once the process is a zombie: taking it for
            // "no script" would make the process the interpreter alone.
            guard !commandLine.isEmpty else { throw .unreadable("its command line is empty") }
            interpreterCommandLine = commandLine
            switch interpreter.script(in: ProcFiles.arguments(cmdline: commandLine).dropFirst()) {
            case .none: break
            case .named(let named): scriptName = named
            case .file(let file): script = try ProgramFile.script(file, of: process.pid, uid: uid, digests: digests)
            }
        }
        let (app, unit) = try sandbox(of: process.pid)
        let program: Program
        do throws(CofferError) {
            program = try Program(
                executablePath: executable.path, executableDigest: executable.digest, executablePinned: executable.pinned,
                script: script?.path ?? scriptName, scriptDigest: script?.digest, scriptPinned: script?.pinned ?? false,
                sandboxApp: app, systemdUnit: unit)
        } catch {
            throw .unreadable("\(error)")
        }
        remember(program, for: process, executable: executableKey, commandLine: interpreterCommandLine)
        return program
    }

    private func commandLine(of pid: pid_t) -> [UInt8] {
        ProcFiles.read("/proc/\(pid)/cmdline", limit: 1 << 16) ?? []
    }

    /// The process's Flatpak app or snap, and its systemd service.
    private func sandbox(of pid: pid_t) throws(CallerResolutionError) -> (app: String?, unit: String?) {
        var app: String?
        if let info = ProcFiles.read("/proc/\(pid)/root/.flatpak-info", limit: 1 << 16, regularOnly: true) {
            guard let flatpak = SandboxIdentity.flatpakApp(info: info) else { throw .unreadable("its .flatpak-info names no app") }
            app = flatpak
        } else if errno != ENOENT {
            throw ProgramFile.failure(errno, reading: "root/.flatpak-info")
        }
        let cgroup = ProcFiles.read("/proc/\(pid)/cgroup", limit: 1 << 16).flatMap(SandboxIdentity.cgroupPath)
        if app == nil { app = cgroup.flatMap(SandboxIdentity.snap) }
        return (app, cgroup.flatMap(SandboxIdentity.serviceUnit))
    }

    private func remember(_ program: Program, for process: ProcessKey, executable: FileDigests.Key, commandLine: [UInt8]?) {
        known.withLock { known in
            known.counter += 1
            known.processes[process] = Remembered(program: program, executable: executable, commandLine: commandLine, order: known.counter)
            guard known.processes.count > Self.capacity else { return }
            let oldest = known.processes.sorted { $0.value.order < $1.value.order }.prefix(Self.capacity / 4)
            for (key, _) in oldest { known.processes[key] = nil }
        }
    }
}
