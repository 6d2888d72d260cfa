/// The two kinds of item, as in Apple's keychain.
public enum ItemClass: UInt8, Sendable, Hashable, CaseIterable, Codable {
    /// A password for a service, identified by service and account.
    case genericPassword = 1
    /// A password for a server, identified by server and account, with protocol, port, path
    /// and authentication type as attributes.
    case internetPassword = 2
}
