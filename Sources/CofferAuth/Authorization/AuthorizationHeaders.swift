import AsyncHTTPClient

/// The headers that authorize a request: `Authorization` and `Oracle-Mobile-Backend-ID`, and
/// `Oracle-Mobile-Application-Key` and `Oracle-Mobile-Device-Id` when the backend configures them.
///
/// `description` shows the header names only: the values are credentials.
public struct AuthorizationHeaders: Sendable, Hashable {
    /// `Basic …` or `Bearer …`.
    public let authorization: String
    /// The backend id.
    public let backendID: String
    /// The application key, when configured.
    public var applicationKey: String? = nil
    /// The device id, when configured.
    public var deviceID: String? = nil

    /// The fields, in the order they are sent.
    public var fields: [(name: String, value: String)] {
        [(HeaderName.authorization, authorization), (HeaderName.backendID, backendID)]
            + MobileBackend.identityHeaders(applicationKey: applicationKey, deviceID: deviceID)
    }

    /// Sets both headers on `request`, replacing any earlier values.
    public func apply(to request: inout HTTPClientRequest) {
        for (name, value) in fields { request.headers.replaceOrAdd(name: name, value: value) }
    }
}

extension AuthorizationHeaders: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "AuthorizationHeaders(Authorization: redacted, \(HeaderName.backendID): \(backendID))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["backendID": backendID]) }
}
