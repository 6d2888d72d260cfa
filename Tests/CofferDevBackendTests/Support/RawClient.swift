import AsyncHTTPClient
import CofferAuth
import CofferDevBackend
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Plain HTTP against the dev backend, with no facade in between: what any client would send.
/// Redirects are not followed: the authorization endpoints answer with one.
struct RawClient {
    let backend: DevBackend

    struct Reply {
        let status: Int
        let headers: [String: String]
        let json: JSONValue?
    }

    func send(
        _ method: NIOHTTP1.HTTPMethod = .GET, _ path: String, authorization: String? = nil, backendID: String? = "coffer-dev",
        form: String? = nil, contentType: String = "application/x-www-form-urlencoded"
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: backend.baseURL.absoluteString + path)
        request.method = method
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        if let backendID { request.headers.add(name: "Oracle-Mobile-Backend-ID", value: backendID) }
        if let form {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await Authorization.defaultHTTPClient.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Reply(status: Int(response.status.code), headers: headers, json: JSONValue(parsing: Data(body.readableBytesView)))
    }

    /// A JSON `POST`.
    func post(_ path: String, json: JSONValue, authorization: String? = nil) async throws -> Reply {
        try await send(.POST, path, authorization: authorization, backendID: nil,
                       form: String(decoding: json.compactJSON, as: UTF8.self), contentType: "application/json")
    }

    /// `Basic …` for the default client.
    static let clientAuthorization = "Basic " + Data("coffer-cli:coffer-cli-secret".utf8).base64EncodedString()

    /// Gets a user token with the password grant.
    func passwordToken(user: String = "demo", password: String = "demo-password") async throws -> String {
        let reply = try await send(.POST, "/oauth2/v1/token", authorization: Self.clientAuthorization,
                                   form: "grant_type=password&username=\(user)&password=\(password)")
        return reply.json?["access_token"]?.stringValue ?? ""
    }
}
