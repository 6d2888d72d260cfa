import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Builds the requests the protocols send: every one carries the backend id.
enum BackendRequest {
    /// A request to `url` with the backend-id header and `Accept: application/json`.
    static func make(_ method: HTTPMethodName, _ url: URL, backend: MobileBackend, authorization: String? = nil) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method.nio
        request.headers.add(name: HeaderName.backendID, value: backend.backendID)
        request.headers.add(name: HeaderName.accept, value: MediaType.json)
        if let authorization { request.headers.add(name: HeaderName.authorization, value: authorization) }
        return request
    }

    /// A form-encoded `POST` to `url`.
    static func form(_ url: URL, _ pairs: [(String, String)], backend: MobileBackend, authorization: String?) -> HTTPClientRequest {
        var request = make(.post, url, backend: backend, authorization: authorization)
        request.headers.add(name: HeaderName.contentType, value: MediaType.form)
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(pairs)))
        return request
    }

    /// The URL of `path` below the backend's base URL.
    static func url(_ path: String, below backend: MobileBackend) -> URL {
        backend.baseURL.appendingPathComponent(path)
    }
}

/// The HTTP methods the protocols use.
enum HTTPMethodName {
    case get, post

    var nio: NIOHTTP1.HTTPMethod { self == .get ? .GET : .POST }
}
