import Foundation

/// `coffer-bench secret-service-client`: one libsecret client, driven line by line on stdin by
/// ``SecretServiceProviderBenchmark`` so that two of them (one per daemon, one per bus) take
/// turns. Each command answers one line: the microseconds its libsecret call took, or
/// `error TEXT`.
///
///     lookup N | store N | search N    the call on item N (service "bench", username "userN")
///     ready N                          lookup N until it succeeds (30 s at most), untimed
///     password TEXT                    give gnome-keyring's login keyring this password
enum SecretServiceClient {
    static func run() {
        var service: LibsecretService?
        while let line = readLine() {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { answer("error malformed command"); continue }
            do {
                if parts[0] == "password" {
                    try KeyringPassword.set(parts[1])
                    answer("0")
                    continue
                }
                guard let index = Int(parts[1]) else { answer("error malformed number"); continue }
                let attributes = ["service": "bench", "username": "user\(index)"]
                if service == nil { service = try LibsecretService() }
                guard let service else { continue }
                let clock = ContinuousClock()
                switch parts[0] {
                case "lookup":
                    var found = false
                    let elapsed = try clock.measure { found = try service.lookup(attributes) }
                    answer(found ? "\(Measurement.microseconds(elapsed))" : "error user\(index) not found")
                case "store":
                    let elapsed = try clock.measure { try service.store(attributes, label: "bench", secret: "stored \(index)") }
                    answer("\(Measurement.microseconds(elapsed))")
                case "search":
                    var count = 0
                    let elapsed = try clock.measure { count = try service.search(attributes) }
                    answer(count == 1 ? "\(Measurement.microseconds(elapsed))" : "error user\(index) found \(count) times")
                case "ready":
                    let deadline = ContinuousClock.now + .seconds(30)
                    while !((try? service.lookup(attributes)) ?? false) {
                        guard ContinuousClock.now < deadline else { throw RawLibsecret.Failure(description: "user\(index) never found") }
                        usleep(50_000)
                    }
                    answer("0")
                default:
                    answer("error unknown command")
                }
            } catch {
                answer("error \(error)")
            }
        }
    }

    private static func answer(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
