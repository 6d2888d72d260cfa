import Foundation

/// The client's registration with a MobileFirst or Mobile Client Access server: the id the
/// server gave it, and the key pair whose public half it registered (the client proves it holds
/// the private half by signing). It is kept in the keychain, so a restarted app stays the same
/// client; no shared secret exists. `description` redacts the key.
package struct ClientRegistration: Sendable, Hashable, Codable {
    let clientID: String
    let key: ClientKey
    /// MobileFirst: the device and application data the registration was signed over, so that
    /// a change is sent to the server (`PUT registration/v1/self/{id}`), as the SDKs do.
    var registeredData: JSONValue?
}

extension ClientRegistration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { "ClientRegistration(clientID: \(clientID), key: redacted)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["clientID": clientID]) }
}
