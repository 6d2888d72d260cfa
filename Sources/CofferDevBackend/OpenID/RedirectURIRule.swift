import Foundation

/// How a requested `redirect_uri` is compared with a registered one (RFC 6749 §3.1.2.3,
/// RFC 8252 §7.3, RFC 9700 §4.1.3).
public enum RedirectURIRule {
    /// Whether `requested` matches `registered`: the same string, or, when `registered` is an
    /// `http` URI on the loopback address `127.0.0.1` or `[::1]`, the same scheme, host, path and
    /// query on any port. `localhost` is not a loopback address here, and a fragment never matches.
    public static func matches(registered: String, requested: String) -> Bool {
        guard !requested.contains("#") else { return false }
        if registered == requested { return true }
        guard let wanted = URLComponents(string: registered), let given = URLComponents(string: requested),
              wanted.scheme == "http", given.scheme == "http",
              let host = wanted.host, isLoopback(host), given.host == host,
              wanted.user == nil, given.user == nil, wanted.password == nil, given.password == nil
        else { return false }
        return wanted.percentEncodedPath == given.percentEncodedPath && wanted.percentEncodedQuery == given.percentEncodedQuery
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "::1" || host == "[::1]"
    }
}
