import CofferAuth
import CofferCommandLine
import Foundation

extension NetworkOptions {
    /// Throws (``ExitStatus/usage``) unless `url` may carry credentials: https, or http to loopback, or
    /// --insecure-http. Checked before any secret is read or any connection made.
    func check(_ url: URL) throws {
        try TransportSecurity.check(url, allowInsecureHTTP: insecureHTTP, logger: AuthProfile.logger)
    }
}
