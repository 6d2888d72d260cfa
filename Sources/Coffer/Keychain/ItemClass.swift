/// The kinds of item: the two of Apple's keychain, and the Secret Service's own.
public enum ItemClass: UInt8, Sendable, Hashable, CaseIterable, Codable {
    /// A password for a service, identified by service and account.
    case genericPassword = 1
    /// A password for a server, identified by server and account, with protocol, port, path
    /// and authentication type as attributes.
    case internetPassword = 2
    /// An item known by its attributes alone, as the Secret Service knows items: one that a
    /// Secret Service client stored without the `service` and `username` attributes. Its
    /// service is a random identifier (32 hex digits) and its account is empty
    /// (vault format version 2).
    case attributeItem = 3
}
