import CofferTestSupport
@testable import CofferDevBackend
import XCTest

final class OpenIDLogTests: OpenIDTestCase {
    /// One line per request, with method, path and status, and never a password, code, user
    /// code, device code, verifier, client secret or token.
    func testLogsCarryNoSecrets() async throws {
        let capture = LogCapture()
        try await restart {
            $0.logger = capture.logger(label: "server")
            $0.openID.autoApproveUser = nil
        }
        var secrets: [String] = ["demo-password", try XCTUnwrap(OpenIDFlow.confidential.secret)]

        let request = OpenIDFlow.Request()
        _ = try await flow.authorize(request)
        let form = URLForm.encode(request.pairs + [("username", "demo"), ("password", "demo-password"), ("action", "allow")])
        let redirect = try await client.send(.POST, "/oidc/authorize", backendID: nil, form: form)
        let code = try XCTUnwrap(redirect.redirectParameters["code"])
        let login = try await flow.exchange(code, request)
        let refreshed = try await flow.refresh(try XCTUnwrap(login.json?["refresh_token"]?.stringValue))
        _ = try await flow.userinfo(try XCTUnwrap(refreshed.json?["access_token"]?.stringValue))
        secrets += [code, request.pkce.verifier, request.pkce.challenge, request.nonce ?? ""]
        for reply in [login, refreshed] {
            secrets += ["access_token", "refresh_token", "id_token"].compactMap { reply.json?[$0]?.stringValue }
        }

        let device = try await flow.startDevice().object()
        let userCode = try XCTUnwrap(device["user_code"]?.stringValue)
        let deviceCode = try XCTUnwrap(device["device_code"]?.stringValue)
        _ = try await client.send(.GET, "/oidc/device/verify?user_code=\(userCode)", backendID: nil)
        _ = try await client.send(.POST, "/oidc/device/verify", backendID: nil, form: URLForm.encode([
            ("user_code", userCode), ("username", "demo"), ("password", "demo-password"), ("action", "allow"),
        ]))
        let deviceTokens = try await flow.poll(deviceCode)
        let revoke = URLForm.encode([("token", deviceTokens.json?["refresh_token"]?.stringValue ?? ""), ("client_id", "coffer-native")])
        _ = try await client.send(.POST, "/oauth2/v1/revoke", backendID: nil, form: revoke)
        secrets += [userCode, userCode.replacingOccurrences(of: "-", with: ""), deviceCode]
        secrets += ["access_token", "refresh_token", "id_token"].compactMap { deviceTokens.json?[$0]?.stringValue }

        let text = capture.text
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("info Request ") }.count, 10, text)
        XCTAssertTrue(text.contains("hb.request.method=POST hb.request.path=/oidc/authorize hb.response.status=302"), text)
        for secret in secrets where !secret.isEmpty {
            XCTAssertFalse(text.contains(secret), "a secret was logged: \(secret.prefix(12))…")
        }
    }
}
