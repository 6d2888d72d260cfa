/// One collection the provider serves: a vault, or what a share serves.
struct ServedCollection: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// The vault `coffer` uses by default: the `default` alias, labelled "Login".
        case login
        /// A vault `CreateCollection` made, whose key is an item of the login collection.
        case created
        /// Another vault the agent holds (after `coffer unlock --vault`).
        case held
        /// The items an agent's share serves (`agent start --secret-service --upstream`): the
        /// only collection then, with no vault here.
        case upstream
    }

    /// The element of its path, `/org/freedesktop/secrets/collection/NAME`.
    let name: String
    /// The vault file, as the agent names it (its real path once it exists); the share's socket
    /// for an upstream collection.
    let vaultPath: String
    var label: String
    let kind: Kind

    var path: String { ObjectPaths.collection(name) }
}
