import Coffer
import Foundation

/// Which kind of login the agent's token broker holds for a profile (docs/agent.md, "The token
/// broker"), told by the `format` of the login's settings: in the bytes of a `keep login`
/// request and in the stored settings item (``BrokeredSessions/settingsID(profile:)``). The
/// agent's request set is the same for every kind.
package enum BrokeredLoginKind: Int, Sendable, CaseIterable {
    /// An OpenID Connect or OAuth 2.0 login (``BrokeredLogin``): format 1, as every login kept
    /// before there were other kinds.
    case openID = 1
    /// A mobile backend's OAuth login (``BrokeredBackendLogin``): format 2.
    case mobileBackend = 2

    /// The kind of the login in `bytes`, a `keep login` request's. Throws
    /// ``CofferError/invalidArgument(reason:)`` for bytes that are no login, or a format this
    /// agent does not know.
    package init(login bytes: SecureBytes) throws(CofferError) {
        let data = bytes.withUnsafeBytes { Data($0) }
        guard let login = try? JSONDecoder.sessions.decode(LoginProbe.self, from: data), let kind = Self(rawValue: login.settings.format) else {
            throw .invalidArgument(reason: "the login to keep is of no kind this agent knows")
        }
        self = kind
    }

    /// The kind of the login `profile` stored in `vault`, or `nil` when it holds none it can read.
    package static func stored(profile: String, in vault: Vault) throws(CofferError) -> Self? {
        guard let data = try vault.secret(for: BrokeredSessions.settingsID(profile: profile)) else { return nil }
        return (try? JSONDecoder.sessions.decode(SettingsProbe.self, from: data)).flatMap { Self(rawValue: $0.format) }
    }

    /// The most programs a login names (``allowedPrograms(in:)``).
    static let maxAllowed = 8

    /// The programs a `keep login` request's login names to get its tokens besides the program
    /// that hands it over (its `allowed` executables' real paths, as `coffer set --allow` names
    /// them for an item), for the settings item's access list. Throws
    /// ``CofferError/invalidArgument(reason:)`` for more than ``maxAllowed`` or a path that is no
    /// program's.
    static func allowedPrograms(in bytes: SecureBytes) throws(CofferError) -> [Program] {
        let data = bytes.withUnsafeBytes { Data($0) }
        let paths = (try? JSONDecoder.sessions.decode(AllowedProbe.self, from: data))?.allowed ?? []
        guard paths.count <= maxAllowed else {
            throw .invalidArgument(reason: "a login names at most \(maxAllowed) programs")
        }
        return try paths.map { path throws(CofferError) in try Program(executablePath: Array(path.utf8)) }
    }

    /// `login`'s bytes for a `keep login` request.
    static func encode(_ login: some Encodable) throws(AuthError) -> SecureBytes {
        guard var data = try? JSONEncoder.sessions.encode(login) else { throw .invalidRequest(reason: "the login cannot be encoded") }
        defer { data.resetBytes(in: 0..<data.count) }
        return SecureBytes(copying: Array(data))
    }

    private struct SettingsProbe: Decodable {
        let format: Int
    }

    private struct AllowedProbe: Decodable {
        let allowed: [String]?
    }

    private struct LoginProbe: Decodable {
        let settings: SettingsProbe
    }
}
