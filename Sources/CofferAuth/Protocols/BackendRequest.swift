import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Builds the requests the protocols send: every OMC request carries the backend id; the
/// MobileFirst and Mobile Client Access requests carry none.
enum BackendRequest {
    /// A request to `url` with the backend-id header, the application key and device id when
    /// configured, and `Accept: application/json`.
    static func make(_ method: HTTPMethodName, _ url: URL, backend: MobileBackend, authorization: String? = nil) -> HTTPClientRequest {
        var request = make(method, url, backendID: backend.backendID, authorization: authorization)
        for (name, value) in backend.identityHeaders { request.headers.add(name: name, value: value) }
        return request
    }

    /// A request to `url` with `Accept: application/json`, and the backend-id header when given.
    static func make(_ method: HTTPMethodName, _ url: URL, backendID: String?, authorization: String? = nil) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method.nio
        if let backendID { request.headers.add(name: HeaderName.backendID, value: backendID) }
        request.headers.add(name: HeaderName.accept, value: MediaType.json)
        if let authorization { request.headers.add(name: HeaderName.authorization, value: authorization) }
        return request
    }

    /// A form-encoded `POST` to `url`.
    static func form(_ url: URL, _ pairs: [(String, String)], backend: MobileBackend, authorization: String?) -> HTTPClientRequest {
        form(url, pairs, backendID: backend.backendID, authorization: authorization)
    }

    /// A form-encoded `POST` to `url`, with the backend-id header when given.
    static func form(_ url: URL, _ pairs: [(String, String)], backendID: String?, authorization: String?) -> HTTPClientRequest {
        var request = make(.post, url, backendID: backendID, authorization: authorization)
        request.headers.add(name: HeaderName.contentType, value: MediaType.form)
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(pairs)))
        return request
    }

    /// A JSON `POST` (or `PUT`) of `object` to `url`, without the backend-id header.
    static func json(_ url: URL, _ object: [String: JSONValue], method: HTTPMethodName = .post) -> HTTPClientRequest {
        var request = make(method, url, backendID: nil)
        request.headers.add(name: HeaderName.contentType, value: MediaType.json)
        request.body = .bytes(ByteBuffer(bytes: JSONValue.object(object).compactJSON))
        return request
    }

    /// The URL of `path` below the backend's base URL.
    static func url(_ path: String, below backend: MobileBackend) -> URL {
        backend.baseURL.appendingPathComponent(path)
    }
}

/// The HTTP methods the protocols use.
enum HTTPMethodName {
    case get, post, put

    var nio: NIOHTTP1.HTTPMethod {
        switch self {
        case .get: .GET
        case .post: .POST
        case .put: .PUT
        }
    }
}
