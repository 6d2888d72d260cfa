import CLibSecret
import Foundation

/// `coffer-bench dispatch`: what it costs a D-Bus server to answer a call on a thread other than
/// the one that reads it. Three ``DispatchServer``s on one private bus answer `Echo` (GDBus with
/// a main-loop thread of its own, as Coffer's provider does; GDBus on its worker thread, in a
/// message filter; sd-bus on one thread), and one GDBus client calls them in turn; medians of
/// the round trips as the client times them.
enum DispatchBenchmark {
    static let calls = 3000
    static let modes = ["loop", "filter", "sdbus"]

    static func run() throws {
        print("## coffer-bench dispatch\n")
        let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        try Measurement.withTemporaryFolder { folder in
            let bus = try PrivateBusDaemon(folder: folder)
            defer { bus.stop() }
            let servers = try modes.map { mode in try EchoServer(bench, mode: mode, address: bus.address) }
            defer { servers.forEach { $0.stop() } }
            let flags = GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            var error: UnsafeMutablePointer<GError>?
            guard let connection = g_dbus_connection_new_for_address_sync(bus.address, flags, nil, nil, &error) else {
                throw RawLibsecret.Failure(description: "the client did not connect")
            }
            defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
            var samples = Array(repeating: [Double](), count: servers.count)
            let clock = ContinuousClock()
            for index in 0..<(calls + 100) {
                for (slot, server) in servers.enumerated() {
                    var reply: OpaquePointer?
                    let elapsed = clock.measure {
                        var argument: OpaquePointer? = g_variant_new_string("/org/freedesktop/secrets/collection/login")
                        reply = g_dbus_connection_call_sync(
                            connection, server.name, DispatchServer.path, DispatchServer.interface, "Echo",
                            g_variant_new_tuple(&argument, 1), nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, nil)
                    }
                    guard let reply else { throw RawLibsecret.Failure(description: "\(server.mode) did not answer") }
                    g_variant_unref(reply)
                    if index >= 100 { samples[slot].append(Measurement.microseconds(elapsed)) }
                }
            }
            print("One GDBus client calling `Echo(s) → s` on three servers on one private bus, in turn; medians of \(calls) round trips.\n")
            print("| server | round trip | / GDBus, main-loop thread |")
            print("|---|---:|---:|")
            let names = ["GDBus, a main-loop thread of its own (as the provider)", "GDBus, a filter on its worker thread", "sd-bus, one thread"]
            let base = Measurement.median(samples[0])
            for (slot, name) in names.enumerated() {
                let median = Measurement.median(samples[slot])
                print("| \(name) | \(Measurement.format(median)) | \(Measurement.ratio(median, base)) |")
            }
            print("")
        }
    }
}

/// A `coffer-bench dispatch-server` process.
private final class EchoServer {
    let mode: String
    let name: String
    private let process = Process()
    private let input = Pipe()

    init(_ bench: URL, mode: String, address: String) throws {
        self.mode = mode
        let output = Pipe()
        process.executableURL = bench
        process.arguments = ["dispatch-server", mode, address]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw RawLibsecret.Failure(description: "the \(mode) server ended") }
            line += chunk
        }
        name = String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
        guard name.hasPrefix(":") else { throw RawLibsecret.Failure(description: "the \(mode) server: \(name)") }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
