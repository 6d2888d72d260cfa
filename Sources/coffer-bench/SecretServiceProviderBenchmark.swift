@_spi(Benchmarks) import Coffer
import Foundation

/// `coffer-bench secret-service-provider`: Coffer's Secret Service (`coffer agent start
/// --secret-service`) beside gnome-keyring, each on a private bus of its own, driven by
/// libsecret's own calls (``LibsecretService``) in one client process per daemon, which take
/// turns call after call: lookup, store (CreateItem with replace) and search, at 100 and at
/// 10,000 items; and each daemon's peak RSS.
///
/// gnome-keyring's keyring is its usual encrypted binary one, made without filling it through
/// its API, which slows with every item (5,000 stores took about 10 minutes here): the items are
/// written in its unencrypted textual format (which its own loader reads), gnome-keyring is
/// asked to give the keyring a password (its `ChangeWithMasterPassword`, which writes the binary
/// format with its own writer), then restarted unlocked with that password, as a login does.
/// Coffer's vault is filled in one transaction, then held by the agent (`coffer unlock` with a
/// key file).
enum SecretServiceProviderBenchmark {
    static let sizes = ProcessInfo.processInfo.environment["COFFER_BENCH_SIZES"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [100, 10_000]
    static let lookups = 300
    static let stores = 30
    static let searches = 300
    static let keyringPassword = "coffer-bench keyring password"

    struct Result {
        let items: Int
        let lookup: (keyring: Double, coffer: Double)
        let store: (keyring: Double, coffer: Double)
        let search: (keyring: Double, coffer: Double)
        /// Coffer's search with gnome-keyring idle: its own scaling, with nothing of gnome-keyring's
        /// work (which goes on after it answers, at 10,000 items) on the other core.
        let cofferSearchAlone: Double
        let peakRSS: (keyring: Int, coffer: Int)
    }

    static func run() throws {
        print("## coffer-bench secret-service-provider\n")
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let coffer = bin.appendingPathComponent("coffer"), bench = bin.appendingPathComponent("coffer-bench")
        for tool in ["/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", coffer.path] where !FileManager.default.isExecutableFile(atPath: tool) {
            print("skipped: \(tool) is missing (build coffer beside coffer-bench: swift build -c release --product coffer)\n")
            return
        }
        let results = try sizes.map { size in
            try Measurement.withTemporaryFolder { folder in try measure(items: size, in: folder, coffer: coffer, bench: bench) }
        }
        report(results)
    }

    private static func measure(items: Int, in folder: URL, coffer: URL, bench: URL) throws -> Result {
        // gnome-keyring: its own bus and home; the keyring made as the type's comment says.
        let keyringHome = folder.appendingPathComponent("keyring")
        try FileManager.default.createDirectory(at: keyringHome.appendingPathComponent("keyrings"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try writeTextualKeyring(items: items, to: keyringHome.appendingPathComponent("keyrings"))
        let keyringBus = try PrivateBusDaemon(folder: keyringHome)
        defer { keyringBus.stop() }
        var keyringEnvironment = ProcessInfo.processInfo.environment
        for name in ["HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"] { keyringEnvironment[name] = keyringHome.path }
        keyringEnvironment["DBUS_SESSION_BUS_ADDRESS"] = keyringBus.address
        let converting = try BenchProcess.start("/usr/bin/gnome-keyring-daemon", ["--foreground", "--components=secrets"], environment: keyringEnvironment)
        let converter = try BenchClient(bench, environment: keyringEnvironment)
        _ = try converter.ask("password \(keyringPassword)", retryingFor: .seconds(600))
        converter.stop()
        converting.stop()
        let keyring = try BenchProcess.start(
            "/usr/bin/gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"], environment: keyringEnvironment,
            stdin: Data(keyringPassword.utf8))
        defer { keyring.stop() }

        // Coffer: its own bus; the vault filled in one transaction and held by the agent.
        let agent = try BenchAgent(items: items, in: folder.appendingPathComponent("coffer"), coffer: coffer)
        defer { agent.stop() }
        let cofferEnvironment = agent.environment

        let keyringClient = try BenchClient(bench, environment: keyringEnvironment)
        defer { keyringClient.stop() }
        let cofferClient = try BenchClient(bench, environment: cofferEnvironment)
        defer { cofferClient.stop() }
        for client in [keyringClient, cofferClient] { _ = try client.ask("ready \(items - 1)", retryingFor: .seconds(600)) }

        var generator = SystemRandomNumberGenerator()
        let picks = (0..<(lookups + searches + 40)).map { _ in Int.random(in: 0..<items, using: &generator) }
        func turns(_ command: String, count: Int, warmup: Int) throws -> (keyring: Double, coffer: Double) {
            var samples: [[Double]] = [[], []]
            for index in 0..<(warmup + count) {
                for (slot, client) in [keyringClient, cofferClient].enumerated() {
                    let microseconds = try client.ask("\(command) \(picks[index])")
                    if index >= warmup { samples[slot].append(microseconds) }
                }
            }
            return (Measurement.median(samples[0]), Measurement.median(samples[1]))
        }
        let lookup = try turns("lookup", count: lookups, warmup: 20)
        let search = try turns("search", count: searches, warmup: 20)
        let store = try turns("store", count: stores, warmup: 3)
        let searchAlone = Measurement.median(try (0..<searches).map { index in try cofferClient.ask("search \(picks[index])") })
        return Result(
            items: items, lookup: lookup, store: store, search: search, cofferSearchAlone: searchAlone,
            peakRSS: (keyring.peakRSSKiB, agent.process.peakRSSKiB))
    }

    /// gnome-keyring's textual keyring format (its pkcs11/secret-store/gkm-secret-textual.c): a
    /// GKeyFile with a `[keyring]` group, a group per item, a group per attribute.
    private static func writeTextualKeyring(items: Int, to folder: URL) throws {
        var text = "[keyring]\ndisplay-name=Login\nctime=1700000000\nmtime=1700000000\nlock-on-idle=false\nlock-after=false\n\n"
        for index in 0..<items {
            let id = index + 1
            text += "[\(id)]\nitem-type=0\ndisplay-name=bench\nsecret=secret \(index)\nmtime=1700000000\nctime=1700000000\n\n"
            text += "[\(id):attribute0]\nname=service\ntype=string\nvalue=bench\n\n"
            text += "[\(id):attribute1]\nname=username\ntype=string\nvalue=user\(index)\n\n"
        }
        try Data(text.utf8).write(to: folder.appendingPathComponent("login.keyring"))
        try Data("login".utf8).write(to: folder.appendingPathComponent("default"))
        for name in ["login.keyring", "default"] { chmod(folder.appendingPathComponent(name).path, 0o600) }
    }

    static func retry(for limit: Duration, _ body: () throws -> Void) throws {
        let deadline = ContinuousClock.now + limit
        while true {
            do { return try body() } catch where ContinuousClock.now < deadline { usleep(50_000) }
        }
    }

    private static func report(_ results: [Result]) {
        print("libsecret's own calls (secret_service_lookup_sync, _store_sync, _search_sync, Diffie-Hellman session) from")
        print("one client process per daemon, each daemon on a private bus of its own, the two clients taking turns; medians")
        print("of \(lookups) lookups, \(searches) searches and \(stores) stores, as each client timed its call. Peak RSS: each daemon's VmHWM.\n")
        print("| items | operation | gnome-keyring | Coffer | Coffer / gnome-keyring |")
        print("|---:|---|---:|---:|---:|")
        for result in results {
            for (name, pair) in [("lookup", result.lookup), ("store", result.store), ("search", result.search)] {
                print("| \(result.items) | \(name) | \(Measurement.format(pair.keyring)) | \(Measurement.format(pair.coffer)) | \(Measurement.ratio(pair.coffer, pair.keyring)) |")
            }
            print("| \(result.items) | search, Coffer alone | | \(Measurement.format(result.cofferSearchAlone)) | |")
            let rss = result.peakRSS
            print("| \(result.items) | peak RSS | \(String(format: "%.1f MiB", Double(rss.keyring) / 1024)) | \(String(format: "%.1f MiB", Double(rss.coffer) / 1024)) | \(String(format: "%.2f×", Double(rss.coffer) / Double(max(rss.keyring, 1)))) |")
        }
        guard let small = results.first, let large = results.last, results.count == 2 else { return }
        print("\nTargets: lookup ≤ 1.0× gnome-keyring at \(small.items) items (\(Measurement.ratio(small.lookup.coffer, small.lookup.keyring))),"
              + " ≤ 0.5× at \(large.items) (\(Measurement.ratio(large.lookup.coffer, large.lookup.keyring)));"
              + " store ≤ 0.5× at \(large.items) (\(Measurement.ratio(large.store.coffer, large.store.keyring)));"
              + " Coffer's search at \(large.items) within 1.2× of at \(small.items) (alone: \(Measurement.ratio(large.cofferSearchAlone, small.cofferSearchAlone)); taking turns: \(Measurement.ratio(large.search.coffer, small.search.coffer)));"
              + " peak RSS at \(large.items) ≤ gnome-keyring's (\(String(format: "%.2f×", Double(large.peakRSS.coffer) / Double(max(large.peakRSS.keyring, 1)))))\n")
    }
}

/// A `coffer-bench secret-service-client` process on one bus (``SecretServiceClient``).
final class BenchClient {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffered = Data()

    init(_ bench: URL, environment: [String: String]) throws {
        process.executableURL = bench
        process.arguments = ["secret-service-client"]
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Sends one command; returns the microseconds it reports. Throws on `error`, unless it
    /// keeps asking until `retryingFor` has passed (a daemon still starting).
    @discardableResult
    func ask(_ command: String, retryingFor limit: Duration = .zero) throws -> Double {
        let deadline = ContinuousClock.now + limit
        while true {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
            let line = try readLine()
            if let value = Double(line) { return value }
            guard ContinuousClock.now < deadline else { throw RawLibsecret.Failure(description: "\(command): \(line)") }
            usleep(200_000)
        }
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered = Data(buffered[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw RawLibsecret.Failure(description: "the client process ended") }
            buffered += chunk
        }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// A `dbus-daemon` on a socket in `folder`, without service activation (a name nobody owns must
/// not start a daemon of the user's).
final class PrivateBusDaemon {
    let address: String
    private let daemon: BenchProcess

    init(folder: URL) throws {
        let socket = folder.appendingPathComponent("bus").path
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:path=\(socket)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
            """
        try Data(configuration.utf8).write(to: folder.appendingPathComponent("bus.conf"))
        daemon = try BenchProcess.start("/usr/bin/dbus-daemon", ["--config-file=\(folder.path)/bus.conf", "--nofork", "--nopidfile"])
        address = "unix:path=\(socket)"
        try SecretServiceProviderBenchmark.retry(for: .seconds(10)) {
            guard FileManager.default.fileExists(atPath: socket) else { throw RawLibsecret.Failure(description: "no bus socket yet") }
        }
    }

    func stop() { daemon.stop() }
}

/// A daemon or command the benchmark starts.
final class BenchProcess {
    private let process: Process

    private init(_ process: Process) { self.process = process }

    static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil) throws -> BenchProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let input = Pipe()
        if stdin != nil { process.standardInput = input }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        return BenchProcess(process)
    }

    /// Runs a command to its end; throws when it fails.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        let command = try start(executable, arguments, environment: environment)
        command.process.waitUntilExit()
        guard command.process.terminationStatus == 0 else { throw RawLibsecret.Failure(description: "\(executable) \(arguments) failed") }
    }

    /// The process's peak resident set (VmHWM), in KiB.
    var peakRSSKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
