import Foundation
import Glibc
import XCTest

/// A TPM2 emulated by swtpm on a loopback port, with its own state folder: a fresh one stands
/// for another machine's TPM. Started by the tests themselves (no script needed), and killed
/// when the value goes away.
///
/// systemd-creds reaches it through the TCTI ``device`` (`swtpm:host=127.0.0.1,port=N`). With
/// no resource manager between them, every systemd-creds run leaves TPM sessions behind and
/// three fill the TPM, so call ``flushSessions()`` between runs, as the kernel's `/dev/tpmrm0`
/// does on every close.
///
/// The fault campaign has its own, in Python (scripts/torture/software_tpm.py): plain `swift test`
/// must run these tests with no script or Python package present, and ``freeze()`` must signal
/// swtpm itself, which a helper process between the test and swtpm would hide.
public final class SoftwareTPM: @unchecked Sendable {
    /// The TCTI string for `--tpm2-device` and `$COFFER_TPM2_DEVICE`.
    public let device: String
    private let state = TemporaryFolder()
    private let process: ChildProcess

    /// The Debian packages the TPM tests need, for skip messages.
    public static let packages = "swtpm, swtpm-tools, tpm2-tools and libtss2-tcti-swtpm0"

    /// Starts swtpm on two free loopback ports (commands on N, control on N+1, as the swtpm
    /// TCTI expects) and extends PCR 7 once, as firmware would, so that PCR 7 is initialised.
    /// Throws a ``MissingPrerequisite`` when swtpm or tpm2-tools are missing.
    public init() throws {
        for tool in ["swtpm", "tpm2_pcrextend", "tpm2_flushcontext", "systemd-creds"] where Self.which(tool) == nil {
            throw MissingPrerequisite.error("\(tool) is not installed; the TPM2 tests need \(Self.packages) and systemd")
        }
        var started: (ChildProcess, Int)?
        for _ in 0..<20 {
            guard let port = Self.freePortPair() else { continue }
            let process = try ChildProcess.start("swtpm", [
                "socket", "--tpm2", "--tpmstate", "dir=\(state.url.path)",
                "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
                "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
                "--flags", "not-need-init,startup-clear",
            ], inputs: [0: nil])
            if Self.waitUntilListening(port: port, process: process) {
                started = (process, port)
                break
            }
            _ = process.stop(grace: .seconds(1))
        }
        guard let (process, port) = started else { throw SoftwareTPMError.cannotStart }
        self.process = process
        device = "swtpm:host=127.0.0.1,port=\(port)"
        try extendPCR(7, with: 1)
    }

    /// The environment for tpm2-tools to reach this TPM.
    public var toolEnvironment: [String: String?] { ["TPM2TOOLS_TCTI": device] }

    /// Extends PCR `index` (SHA-256 bank) with a digest made of `value`: the PCR changes, as a
    /// changed boot component would change it.
    public func extendPCR(_ index: Int, with value: UInt8) throws {
        let digest = String(repeating: "0", count: 62) + String(format: "%02x", value)
        let outcome = try ChildProcess.run("tpm2_pcrextend", ["\(index):sha256=\(digest)"], environment: toolEnvironment, timeout: .seconds(20))
        guard outcome.status == 0 else { throw SoftwareTPMError.tool("tpm2_pcrextend", outcome.stderrText) }
    }

    /// Flushes the transient objects and sessions systemd-creds left behind (a resource
    /// manager's job); errors for "nothing to flush" are ignored.
    public func flushSessions() {
        for kind in ["-t", "-l", "-s"] {
            _ = try? ChildProcess.run("tpm2_flushcontext", [kind], environment: toolEnvironment, timeout: .seconds(20))
        }
    }

    /// Stops the emulator (SIGSTOP): it keeps its sockets but answers nothing, as a hung TPM.
    public func freeze() { process.kill(SIGSTOP) }

    /// Lets a frozen emulator go on (SIGCONT).
    public func thaw() { process.kill(SIGCONT) }

    deinit {
        process.kill(SIGCONT)
        _ = process.stop(grace: .seconds(2))
    }

    private static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A port N from the ephemeral range such that N and N+1 are both free on 127.0.0.1 now.
    private static func freePortPair() -> Int? {
        let port = Int.random(in: 20000..<30000)
        return canBind(port) && canBind(port + 1) ? port : nil
    }

    private static func canBind(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func waitUntilListening(port: Int, process: ChildProcess) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if !canBind(port) && !canBind(port + 1) { return true }
            if process.hasEnded { return false }
            usleep(20_000)
        }
        return false
    }
}

/// Why the software TPM could not be used.
public enum SoftwareTPMError: Error, CustomStringConvertible {
    case cannotStart
    case tool(String, String)

    public var description: String {
        switch self {
        case .cannotStart: "swtpm did not start on a free loopback port"
        case .tool(let name, let stderr): "\(name) failed: \(stderr)"
        }
    }
}

/// A host key of its own for systemd-creds (`$SYSTEMD_CREDENTIAL_SECRET`, read by systemd's
/// credential code in place of `/var/lib/systemd/credential.secret`), so tests never touch the
/// machine's; a second one stands for another machine. systemd generates it on first use.
///
/// The host key is root's only on systemd 252 (per-user host-key credentials come in 256):
/// tests that use it need root.
public final class HostKey: @unchecked Sendable {
    private let folder = TemporaryFolder()
    public var path: String { folder.file("credential.secret").path }
    public var environment: [String: String?] { ["SYSTEMD_CREDENTIAL_SECRET": path] }

    /// Skips (also in a strict run, which CI makes as root) when not root.
    public init() throws {
        guard geteuid() == 0 else {
            throw XCTSkip("systemd-creds --with-key=host needs root on systemd 252 (per-user host keys come in systemd 256)")
        }
    }
}
