import AsyncHTTPClient
import Coffer
import CofferAuth
import CofferDevBackend
import Foundation
import Logging

/// `coffer-bench auth`, OpenID part: single-flight refresh under 100 concurrent callers with an
/// expired access token, and what a refresh through `OpenIDClient` costs over the bare token
/// POST it makes, against the in-process dev backend's OpenID provider on 127.0.0.1.
enum OpenIDBenchmark {
    static let refreshes = ProcessInfo.processInfo.environment["COFFER_BENCH_REFRESHES"].flatMap(Int.init) ?? 500
    static let warmup = 50
    static let clientID = OpenIDClientRegistration.native.id
    static let user = DevBackend.Configuration.defaultUser.name

    static func run() async throws {
        let clock = ManualClock()
        var logger = Logger(label: "coffer-bench")
        logger.logLevel = .error
        var configuration = DevBackend.Configuration(now: { clock.now }, logger: logger)
        configuration.openID.deviceApprovalEndpoint = true
        configuration.openID.deviceInterval = 0
        configuration.openID.idTokenLifetime = 365 * 86_400
        let backend = try await DevBackend.start(configuration)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-bench-openid-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let vault = try Vault.create(at: folder.appendingPathComponent("bench.vault"), with: .key(.random(count: 32)))
            let clientConfiguration = OpenIDClient.Configuration(lockFolder: folder, now: { clock.now }, logger: logger)
            let provider = try await OpenIDProvider.discover(issuer: backend.issuer, configuration: clientConfiguration)
            let client = OpenIDClient(provider: provider, clientID: clientID, store: vault, configuration: clientConfiguration)
            try await logIn(client, backend: backend)
            try await SingleFlightRounds.run(
                title: "OpenID single-flight", requests: "refresh requests", backend: backend, clock: clock,
                count: { backend.statistics.refreshRequests }, token: { try await client.accessToken().value })
            let durable = try await refreshCost(client, backend: backend, clock: clock)
            let inMemory = OpenIDClient(
                provider: provider, clientID: clientID, store: InMemoryStore(), profile: "in-memory", configuration: clientConfiguration)
            try await logIn(inMemory, backend: backend)
            let volatile = try await refreshCost(inMemory, backend: backend, clock: clock)
            print("### OpenID refresh: accessToken() with an expired token vs the bare refresh POST (medians of \(refreshes))\n")
            print("| session store | refresh (OpenIDClient) | raw token POST | ratio |")
            print("|---|---:|---:|---:|")
            for (store, (facade, floor)) in [("vault (the rotated refresh token fsynced)", durable), ("in memory", volatile)] {
                print("| \(store) | \(Measurement.format(facade)) | \(Measurement.format(floor)) | \(Measurement.ratio(facade, floor)) |")
            }
            print()
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// `accessToken()` with an expired access token (lock file, reading the session, the POST,
    /// verifying the new ID token, storing the rotated refresh token durably) against the bare
    /// refresh POST on the same HTTP client, each spending its own rotating refresh token.
    static func refreshCost(_ client: OpenIDClient, backend: DevBackend, clock: ManualClock) async throws -> (Double, Double) {
        var refreshToken = try await rawLogin(backend: backend)
        return try await AuthBenchmark.alternatingMedians(
            count: refreshes, warmup: warmup,
            subject: {
                clock.advance(by: backend.configuration.tokenLifetime + 1)
                _ = try await client.accessToken()
            },
            floor: {
                refreshToken = try await tokenPOST(
                    [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)], backend: backend)
            })
    }

    /// A device login, approved through the dev backend's test endpoint.
    static func logIn(_ client: OpenIDClient, backend: DevBackend) async throws {
        let login = try await client.startDeviceLogin()
        _ = try await approve(login.authorization.userCode, backend: backend)
        _ = try await login.complete()
    }

    /// A refresh token obtained with plain HTTP: the device grant, approved through the dev
    /// backend's test endpoint.
    static func rawLogin(backend: DevBackend) async throws -> String {
        let device = try await post(backend.issuer.appendingPathComponent("device"), [("client_id", clientID), ("scope", "openid offline_access")])
        guard let deviceCode = device["device_code"] as? String, let userCode = device["user_code"] as? String else {
            throw BenchmarkFailure("no device code: \(device)")
        }
        _ = try await approve(userCode, backend: backend)
        return try await tokenPOST(
            [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode), ("client_id", clientID)],
            backend: backend)
    }

    static func approve(_ userCode: String, backend: DevBackend) async throws -> [String: Any] {
        try await post(backend.issuer.appendingPathComponent("device/approve"), [("user_code", userCode), ("user", user)])
    }

    /// POSTs a grant to the token endpoint and returns the refresh token of the reply.
    static func tokenPOST(_ form: [(String, String)], backend: DevBackend) async throws -> String {
        let reply = try await post(backend.tokenEndpoint, form)
        guard let refreshToken = reply["refresh_token"] as? String else { throw BenchmarkFailure("no refresh token: \(reply.keys.sorted())") }
        return refreshToken
    }

    static func post(_ url: URL, _ form: [(String, String)]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(.init(string: FormEncoding.encode(form)))
        let response = try await Authorization.defaultHTTPClient.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200, let object = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] else {
            throw BenchmarkFailure("\(url.path) answered \(response.status.code)")
        }
        return object
    }
}
