import CofferCommandLine
import Coffer
import FoundationEssentials

/// git's three helper operations on a store (gitcredentials(7), "CUSTOM HELPERS"), with the
/// matching rules of git's own helpers (`credential_match` in git's credential.c).
struct GitCredentialActions {
    let store: any CredentialStore
    var now: () -> Date = { Date() }

    /// The newest stored credential that `want` selects and that can answer it, as `key=value`
    /// lines; empty when there is none. An expired password is never answered. Throws
    /// ``GitCredential/UnanswerableField`` when that credential holds a line break.
    func get(_ want: GitCredential) throws -> Data {
        var answer = Data()
        if let found = try newestUsable(for: want) {
            answer = try found.answer(to: want.capabilities, now: now())
        } else if want.capabilities.contains(.authType) {
            // Announced even without a credential, so that git passes this helper the
            // pre-encoded credential it then gets elsewhere when it asks it to store it.
            answer = Data("capability[]=authtype\n".utf8)
        }
        return answer
    }

    /// Keeps `credential`, replacing every stored credential it selects (same protocol, host,
    /// username, and path when it has one), as git-credential-store does. Ignored, as by git's
    /// helpers, without a protocol, without a host or path, without a username and password
    /// (or a pre-encoded credential), or when it is ephemeral.
    func store(_ credential: GitCredential) throws {
        guard Self.keeps(credential), let id = GitCredentialItem.id(for: credential) else { return }
        if let existing = try store.items(matching: ItemQuery(itemClass: id.itemClass, service: id.service, account: id.account)).first,
           !GitCredentialItem.isGitCredential(existing) {
            throw CLIError(
                message: "the vault already holds an item for this server and user that git-credential-coffer did not write; not replacing it (see coffer list)",
                exitStatus: .alreadyExists)
        }
        // The new item first, then the ones it replaces: a crash between the two leaves both
        // (get answers the newer), never neither.
        try store.set(GitCredentialItem.secret(for: credential), for: id, options: GitCredentialItem.options(for: credential))
        var replaced = credential
        replaced.password = nil
        replaced.credential = nil
        for stale in try matching(replaced) where stale.id != id {
            try store.remove(stale.id)
        }
    }

    /// Removes every stored credential `want` selects, its password and pre-encoded credential
    /// included when it names them (so another helper's rejected password never erases this
    /// one's). Ignored when `want` names no protocol, host, path or username.
    func erase(_ want: GitCredential) throws {
        guard Self.erases(want) else { return }
        let secretsMatter = want.password != nil || want.credential != nil
        for candidate in try matching(want) {
            if secretsMatter {
                guard let item = try store.item(for: candidate.id), let stored = GitCredentialItem.credential(from: item),
                      want.selects(stored, matchingSecrets: true) else { continue }
            }
            try store.remove(candidate.id)
        }
    }

    /// Whether ``store(_:)`` keeps `credential`.
    static func keeps(_ credential: GitCredential) -> Bool {
        let hasLogin = credential.username != nil && credential.password != nil
        let hasPreEncoded = credential.authType != nil && credential.credential != nil
        return !credential.ephemeral && (hasLogin || hasPreEncoded) && GitCredentialItem.id(for: credential) != nil
    }

    /// Whether ``erase(_:)`` looks for anything: an empty description would select everything.
    static func erases(_ want: GitCredential) -> Bool {
        want.protocol != nil || want.host != nil || want.path != nil || want.username != nil
    }

    /// The newest credential `want` selects that can answer it, with its secrets.
    private func newestUsable(for want: GitCredential) throws -> GitCredential? {
        for candidate in try matching(want).sorted(by: { $0.modified > $1.modified }) {
            guard let item = try store.item(for: candidate.id), let stored = GitCredentialItem.credential(from: item),
                  stored.isUsable(by: want.capabilities) else { continue }
            return stored
        }
        return nil
    }

    /// The attributes of this helper's items that `want` selects by protocol, host, path and username.
    private func matching(_ want: GitCredential) throws -> [ItemAttributes] {
        try store.items(matching: GitCredentialItem.query(for: want)).filter { attributes in
            GitCredentialItem.credential(from: attributes).map { want.selects($0, matchingSecrets: false) } ?? false
        }
    }
}
