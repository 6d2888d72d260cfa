import AsyncHTTPClient
@testable import CofferDevBackend
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import XCTest

/// Plain HTTP against the dev backend, with no facade in between: what any client would send.
/// Redirects are not followed: the authorization endpoints answer with one.
struct RawClient {
    let backend: DevBackend

    /// One client for every test, kept for the process: it follows no redirect.
    static let http = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5))))

    struct Reply {
        let status: Int
        let headers: [String: String]
        let json: JSON?
        /// The body as text (HTML pages).
        let text: String

        /// The JSON body; fails the test when there is none.
        func object(file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
            try XCTUnwrap(json, "no JSON body: \(text.prefix(200))", file: file, line: line)
        }

        /// A string member of the JSON body; fails the test when it is missing.
        func string(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
            try XCTUnwrap(json?[name]?.stringValue, "no \(name) in \(text.prefix(300))", file: file, line: line)
        }

        /// The `Location` header's query parameters (a redirect to the client).
        var redirectParameters: [String: String] {
            guard let location = headers["location"], let query = location.split(separator: "?", maxSplits: 1).dropFirst().first,
                  let pairs = URLForm.pairs(String(query))
            else { return [:] }
            return Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    func send(
        _ method: NIOHTTP1.HTTPMethod = .GET, _ path: String, authorization: String? = nil, backendID: String? = "coffer-dev",
        form: String? = nil, contentType: String = "application/x-www-form-urlencoded", headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: backend.baseURL.absoluteString + path)
        request.method = method
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let backendID { request.headers.add(name: "Oracle-Mobile-Backend-ID", value: backendID) }
        if let form {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await Self.http.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Reply(
            status: Int(response.status.code), headers: headers, json: JSON(parsing: Data(body.readableBytesView)),
            text: String(buffer: body))
    }

    /// A JSON `POST` (or `PUT`).
    func post(_ path: String, json: JSON, authorization: String? = nil, method: NIOHTTP1.HTTPMethod = .POST) async throws -> Reply {
        try await send(method, path, authorization: authorization, backendID: nil,
                       form: String(decoding: json.text, as: UTF8.self), contentType: "application/json")
    }

    /// `Basic base64(user:password)` (RFC 7617).
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// `Basic …` for the default client.
    static let clientAuthorization = basic("coffer-cli", "coffer-cli-secret")

    /// Gets a user token with the password grant.
    func passwordToken(user: String = "demo", password: String = "demo-password") async throws -> String {
        let reply = try await send(.POST, "/oauth2/v1/token", authorization: Self.clientAuthorization,
                                   form: "grant_type=password&username=\(user)&password=\(password)")
        return reply.json?["access_token"]?.stringValue ?? ""
    }
}
