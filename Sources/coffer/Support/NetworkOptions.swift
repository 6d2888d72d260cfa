import ArgumentParser
import CofferAuth
import Foundation

/// How the auth commands may reach servers. Accepted before or after the subcommand.
struct NetworkOptions: ParsableArguments {
    @Flag(name: .customLong("insecure-http"), help: ArgumentHelp(
        "Allow plain http:// to hosts that are not loopback: credentials and tokens then travel unencrypted (a warning is printed each time)."))
    var insecureHTTP = false

    /// Throws (exit 64) unless `url` may carry credentials: https, or http to loopback, or
    /// --insecure-http. Checked before any secret is read or any connection made.
    func check(_ url: URL) throws {
        try TransportSecurity.check(url, allowInsecureHTTP: insecureHTTP, logger: AuthProfile.logger)
    }
}
