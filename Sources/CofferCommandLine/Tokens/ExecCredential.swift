import FoundationEssentials

/// kubectl's exec credential plugin output (client.authentication.k8s.io): the version
/// kubectl names in `$KUBERNETES_EXEC_INFO`, else `v1`.
package struct ExecCredential: Encodable {
    package struct Status: Encodable {
        let token: String
        let expirationTimestamp: Date
    }

    let apiVersion: String
    let kind = "ExecCredential"
    let status: Status

    package init(token: String, expiresAt: Date, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let asked = environment["KUBERNETES_EXEC_INFO"].flatMap { try? JSONDecoder().decode(ExecInfo.self, from: Data($0.utf8)) }?.apiVersion
        apiVersion = asked.flatMap { $0.hasPrefix(Self.group + "/") ? $0 : nil } ?? Self.group + "/v1"
        // RFC 3339 in whole seconds, as kubectl parses it.
        status = Status(token: token, expirationTimestamp: Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down)))
    }

    package static let group = "client.authentication.k8s.io"

    private struct ExecInfo: Decodable {
        let apiVersion: String
    }
}
