import Foundation
import Glibc
import Logging

/// Where credentials and tokens may travel: over HTTPS to any host, and over plain HTTP only
/// to a loopback host (127.0.0.0/8, ::1, `localhost`), unless the app opts in.
///
/// Every request CofferAuth sends passes this check before any connection is made: the base
/// URL, token, revocation, MobileFirst and Mobile Client Access endpoints alike, and any URL a
/// later step takes from a reply. The default HTTP client follows no redirects, so a redirect
/// cannot lead a request elsewhere unchecked.
public enum TransportSecurity {
    /// Throws ``AuthError/invalidRequest(reason:)`` unless `url` may carry credentials: `https`,
    /// or `http` to a loopback host. With `allowInsecureHTTP`, plain HTTP to any host passes,
    /// and `logger` warns each time.
    public static func check(_ url: URL, allowInsecureHTTP: Bool, logger: Logger) throws(AuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .invalidRequest(reason: "not an absolute http(s) URL")
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopback(host: host):
            return
        case "http" where allowInsecureHTTP:
            logger.warning("sending credentials over plain HTTP to a host that is not loopback (allowInsecureHTTP)", metadata: ["host": "\(host)"])
        case "http":
            throw .invalidRequest(
                reason: "refusing plain HTTP to \(host): credentials and tokens go only over HTTPS or to a loopback address (opt in with allowInsecureHTTP, or --insecure-http)")
        default:
            throw .invalidRequest(reason: "\(scheme) is not http or https")
        }
    }

    /// Whether `host` is `localhost`, an IPv4 address in 127.0.0.0/8, or the IPv6 loopback
    /// address (brackets allowed). Names other than `localhost` are not resolved: a name that
    /// happens to resolve to loopback still counts as remote.
    public static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, name, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, name, &ipv6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        let isLoopbackV6 = bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
        let isMappedLoopbackV4 = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        return isLoopbackV6 || isMappedLoopbackV4
    }
}
