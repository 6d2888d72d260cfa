/// One collection the provider serves: a vault.
struct ServedCollection: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// The vault `coffer` uses by default: the `default` alias, labelled "Login".
        case login
        /// A vault `CreateCollection` made, whose key is an item of the login collection.
        case created
        /// Another vault the agent holds (after `coffer unlock --vault`).
        case held
    }

    /// The element of its path, `/org/freedesktop/secrets/collection/NAME`.
    let name: String
    /// The vault file, as the agent names it (its real path once it exists).
    let vaultPath: String
    var label: String
    let kind: Kind

    var path: String { ObjectPaths.collection(name) }
}
