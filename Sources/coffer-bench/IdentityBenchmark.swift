import Coffer
import CofferAgent
import CofferAgentWire
import Foundation
import Glibc

/// `coffer-bench identity`: what telling a caller's program costs the agent per connection
/// (docs/security.md, "Which program is calling"). The peers: this process itself (over a
/// socket pair: a large executable, no script), and `python3` running a script that connects.
///
/// - the first time a binary is seen: its SHA-256 read whole (the page cache warm);
/// - a new process of a binary already hashed (a new resolver sharing the digests);
/// - the same process again (remembered by PID and start time);
/// - what the accept itself takes (`SO_PEERCRED`, `SO_PEERPIDFD`).
enum IdentityBenchmark {
    static let rounds = 2_000
    static let coldRounds = 5

    static func run() throws {
        print("## coffer-bench identity\n")
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw POSIXError(.EIO) }
        defer { pair.forEach { close($0) } }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let size = (try FileManager.default.attributesOfItem(atPath: executable)[.size] as? Int) ?? 0

        var rows: [(String, String)] = []
        let cold = try (0..<coldRounds).map { _ in
            try Measurement.microseconds(ContinuousClock().measure { _ = try CallerResolver(digests: FileDigests()).resolve(socket: pair[0]) })
        }
        let coldMedian = Measurement.median(cold)
        rows.append((
            "first sight of a binary: coffer-bench, \(size >> 20) MiB, hashed",
            Measurement.format(coldMedian) + String(format: " (%.0f MB/s)", Double(size) / coldMedian)))
        rows += try warmRows(peer: pair[0], what: "coffer-bench")

        try Measurement.withTemporaryFolder { folder in
            let socketPath = folder.appendingPathComponent("peer.sock").path
            let listener = try AgentSocket.listen(path: socketPath)
            defer { close(listener) }
            let script = folder.appendingPathComponent("peer.py")
            try Data("import socket, sys, time\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\ntime.sleep(600)\n".utf8).write(to: script)
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            python.arguments = [script.path, socketPath]
            try python.run()
            defer { python.terminate() }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { throw POSIXError(.EIO) }
            defer { close(connection) }
            rows += try warmRows(peer: connection, what: "python3 and a script")
        }

        let accepts = try Measurement.interleavedMedians(count: rounds, warmup: 100, [
            { _ in _ = try PeerProcess.of(socket: pair[0]) },
            { _ in _ = try PeerProcess.of(socket: pair[0], kernelPidfd: false) },
        ])
        rows.append(("at the accept: SO_PEERCRED and SO_PEERPIDFD", Measurement.format(accepts[0])))
        rows.append(("at the accept: SO_PEERCRED and pidfd_open (before Linux 6.5)", Measurement.format(accepts[1])))

        print("Medians of \(rounds) resolutions (\(coldRounds) for a first sight), on one connection each.\n")
        print("| what | time |\n| --- | ---: |")
        for (what, time) in rows { print("| \(what) | \(time) |") }
        print()
    }

    /// A new process of a binary already hashed, and the same process again, for the peer of `descriptor`.
    private static func warmRows(peer descriptor: Int32, what: String) throws -> [(String, String)] {
        let digests = FileDigests()
        let remembering = CallerResolver(digests: digests)
        _ = try remembering.resolve(socket: descriptor)
        let medians = try Measurement.interleavedMedians(count: rounds, warmup: 100, [
            { _ in _ = try CallerResolver(digests: digests).resolve(socket: descriptor) },
            { _ in _ = try remembering.resolve(socket: descriptor) },
        ])
        return [
            ("\(what): a new process of a binary already hashed", Measurement.format(medians[0])),
            ("\(what): the same process again", Measurement.format(medians[1])),
        ]
    }
}
