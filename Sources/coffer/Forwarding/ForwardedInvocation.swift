/// Finds, before parsing, whether a command line names a forwarded command (``ForwardedCommand``):
/// the first word that is not a root option or its value, or the word after `help`.
enum ForwardedInvocation {
    /// The subcommands other executables run.
    static let commands: [String: ForwardedExecutable] = [
        "login": .auth, "token": .auth, "status": .auth, "logout": .auth, "sso-exchange": .auth, "request": .auth,
        "dev-backend": .devBackend,
    ]

    /// The root options that take a value (`--vault PATH`), as given before the subcommand.
    /// `ForwardedCommandTests` checks this list against the parser's own.
    static let rootOptionsWithValues: Set<String> = [
        "--vault", "--passphrase-fd", "--keyfile", "--backend", "--unlock", "--secret-service-timeout",
    ]

    /// The executable and its arguments when `arguments` (without the program name) name a
    /// forwarded command; `nil` otherwise, and for anything the scan does not understand.
    static func target(of arguments: [String]) -> (ForwardedExecutable, [String])? {
        var index = arguments.startIndex
        var asksForHelp = false
        while index < arguments.endIndex {
            let word = arguments[index]
            if rootOptionsWithValues.contains(word) {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                let name = String(word.prefix { $0 != "=" })
                guard word.contains("=") ? rootOptionsWithValues.contains(name) : ["--no-agent", "--insecure-http"].contains(word) else { return nil }
                index += 1
                continue
            }
            if word == "help", !asksForHelp {
                asksForHelp = true
                index += 1
                continue
            }
            guard let executable = commands[word] else { return nil }
            switch executable {
            case .auth: return (executable, arguments)
            case .devBackend: return (executable, asksForHelp ? ["--help"] : Array(arguments[(index + 1)...]))
            }
        }
        return nil
    }
}
