/// One behaviour every Coffer `CredentialStore` must show, checked by
/// ``CredentialStoreConformanceTests``.
public enum CredentialStoreBehaviour: String, CaseIterable, Sendable {
    /// Text secrets, labels, comments and custom attributes come back as stored.
    case textRoundTrip
    /// Every byte value, NUL included, comes back as stored; binary secrets are not text.
    case binaryRoundTrip
    /// Unicode names and secrets come back as stored; canonically equivalent names are one item.
    case unicodeRoundTrip
    /// An empty secret is stored and reads as empty, not as absent.
    case emptySecret
    /// A secret of exactly `Limits.maxSecretBytes` round-trips; one byte more is refused.
    case maximumSizeSecret
    /// Setting an item again replaces its secret and all its metadata, keeps `created`, advances `modified`.
    case replaceKeepsCreated
    /// An absent item reads as `nil` and removes as `false`, without throwing.
    case absentItems
    /// An expired item reads, lists and removes as absent; an unexpired one keeps its expiry.
    case expiry
    /// Queries select by class, service, account and custom attributes, in store order.
    case queries
    /// `removeAll(matching:)` removes exactly what the query selects and counts it.
    case removeAll
    /// Values past Coffer's `Limits` fail with typed errors and store nothing.
    case limits
    /// Internet passwords keep their attributes and are distinct from generic passwords.
    case internetPasswords
    /// Concurrent writers and readers on many threads finish with consistent items.
    case concurrency
    /// An item's description, debug description and reflection never show its secret.
    case redaction
}
