/// The environments Coffer gives the programs it runs: what the caller lists, never this
/// process's whole environment (docs/security.md, "Child processes").
package enum ChildEnvironment {
    /// systemd's default `PATH` (the one it gives services): a child gets this, never this
    /// process's own, which may put a user-writable folder first.
    package static let systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// This process's variables named in `names`, or whose name starts with one of `prefixes`,
    /// plus `PATH` = ``systemPath``. Never a `COFFER_` variable: those are Coffer's own, some
    /// secret (`COFFER_PASSPHRASE`); the caller adds one it means to give.
    package static func passing(_ names: Set<String>, prefixes: [String] = []) -> [String: String] {
        var environment = ProcessEnvironment.variables().filter { name, _ in
            !name.hasPrefix("COFFER_") && (names.contains(name) || prefixes.contains { name.hasPrefix($0) })
        }
        environment["PATH"] = systemPath
        return environment
    }
}
