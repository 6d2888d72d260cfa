import ArgumentParser
import FoundationEssentials

/// How the auth commands may reach servers. Accepted before or after the subcommand, or as
/// $COFFER_INSECURE_HTTP=1, which is how it reaches a forwarded command.
package struct NetworkOptions: ParsableArguments {
    @Flag(name: .customLong("insecure-http"), help: ArgumentHelp(
        "Allow plain http:// to hosts that are not loopback: credentials and tokens then travel unencrypted (a warning is printed each time; default: $COFFER_INSECURE_HTTP=1)."))
    var insecureHTTPFlag = false

    package init() {}

    /// Whether plain HTTP may go to hosts that are not loopback: --insecure-http, or $COFFER_INSECURE_HTTP=1.
    package var insecureHTTP: Bool { insecureHTTPFlag || ProcessInfo.processInfo.environment["COFFER_INSECURE_HTTP"] == "1" }

    /// The option given on the command line, as the environment variable that carries it.
    package var forwardedEnvironment: [String: String] { insecureHTTPFlag ? ["COFFER_INSECURE_HTTP": "1"] : [:] }
}
