import CofferBase
import AsyncHTTPClient
import Coffer
import CofferAuth
import CofferDevBackend
import Foundation
import Logging

/// `coffer-bench auth`: single-flight under 100 concurrent callers with an expired token, and
/// the cost of an authorized request over the same raw HTTP request, against the in-process
/// dev backend on 127.0.0.1.
enum AuthBenchmark {
    static let requests = ProcessInfo.processInfo.environment["COFFER_BENCH_REQUESTS"].flatMap(Int.init) ?? 2_000
    static let warmup = 200

    static func run() async throws {
        print("## coffer-bench auth\n")
        let clock = ManualClock()
        var logger = Logger(label: "coffer-bench")
        logger.logLevel = .error
        let backend = try await DevBackend.start(DevBackend.Configuration(now: { clock.now }, logger: logger))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-bench-auth-\(UUID().uuidString)")
        do {
            let vault = try Vault.create(at: folder.appendingPathComponent("bench.vault"), with: .key(.random(count: 32)))
            let auth = Authorization(
                backend: mobileBackend(backend), store: vault,
                configuration: Authorization.Configuration(now: { clock.now }, logger: logger))
            let user = DevBackend.Configuration.defaultUser
            try await auth.authenticate(userName: user.name, password: user.password)
            try await SingleFlightRounds.run(
                title: "Single-flight", requests: "token requests", backend: backend, clock: clock,
                count: { backend.statistics.tokenRequests }, token: { try await auth.authorizationHeaders().authorization })
            try await overhead(auth, backend: backend)
        } catch {
            await backend.stop()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        await backend.stop()
        try? FileManager.default.removeItem(at: folder)
        try await OpenIDBenchmark.run()
    }

    /// The dev backend as an OAuth mobile backend, with its default client.
    static func mobileBackend(_ backend: DevBackend) -> MobileBackend {
        let client = DevBackend.Configuration.defaultClient
        return MobileBackend(
            baseURL: backend.baseURL, backendID: backend.configuration.backendID,
            authentication: .oauth(tokenEndpoint: backend.tokenEndpoint, clientID: client.id, clientSecret: client.secret),
            revocationEndpoint: backend.revocationEndpoint)
    }

    /// An authorized `GET /protected` through the facade against the same request sent raw with
    /// the same headers and the same HTTP client.
    static func overhead(_ auth: Authorization, backend: DevBackend) async throws {
        let client = Authorization.defaultHTTPClient
        var raw = HTTPClientRequest(url: backend.protectedURL.absoluteString)
        try await auth.authorizationHeaders().apply(to: &raw)
        let rawRequest = raw
        let (facade, floor) = try await alternatingMedians(
            count: requests, warmup: warmup,
            subject: {
                guard try await auth.get(backend.protectedURL).status == 200 else { throw BenchmarkFailure("facade request refused") }
            },
            floor: {
                let response = try await client.execute(rawRequest, timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
                guard response.status.code == 200 else { throw BenchmarkFailure("raw request refused") }
            })
        print("### Overhead: authorized GET /protected vs the same raw HTTP request (medians of \(requests))\n")
        print("| authorized (facade) | raw HTTP | ratio |")
        print("|---:|---:|---:|")
        print("| \(Measurement.format(facade)) | \(Measurement.format(floor)) | \(Measurement.ratio(facade, floor)) |\n")
    }

    /// Medians in µs of `subject` and `floor`, timed in A-B-B-A order so drift hits both alike.
    static func alternatingMedians(
        count: Int, warmup: Int, subject: () async throws -> Void, floor: () async throws -> Void
    ) async throws -> (subject: Double, floor: Double) {
        let clock = ContinuousClock()
        var samples: (subject: [Double], floor: [Double]) = ([], [])
        for index in 0..<(warmup + count) {
            let subjectFirst = index % 2 == 0
            var timings: (subject: Duration, floor: Duration) = (.zero, .zero)
            for part in subjectFirst ? [true, false] : [false, true] {
                let start = clock.now
                if part { try await subject() } else { try await floor() }
                if part { timings.subject = clock.now - start } else { timings.floor = clock.now - start }
            }
            guard index >= warmup else { continue }
            samples.subject.append(Measurement.microseconds(timings.subject))
            samples.floor.append(Measurement.microseconds(timings.floor))
        }
        return (Measurement.median(samples.subject), Measurement.median(samples.floor))
    }
}

/// A clock the benchmark moves forward to expire tokens.
final class ManualClock: Sendable {
    private let offset = Guarded<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
