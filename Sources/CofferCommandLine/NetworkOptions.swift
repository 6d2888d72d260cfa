import ArgumentParser

/// How the auth commands may reach servers. Accepted before or after the subcommand.
package struct NetworkOptions: ParsableArguments {
    @Flag(name: .customLong("insecure-http"), help: ArgumentHelp(
        "Allow plain http:// to hosts that are not loopback: credentials and tokens then travel unencrypted (a warning is printed each time)."))
    package var insecureHTTP = false

    package init() {}
}
