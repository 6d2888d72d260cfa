/// A strict reading of a command line for a thin front program: the options it knows, each
/// once, in either form (`--name value` with a value not starting with `-`, `--name=value`), and positional arguments. Anything
/// else (an unknown option, a repeated one, `--`, a missing value) makes it `nil`, and the full
/// program reads the command line instead.
package struct ThinArguments {
    package private(set) var values: [String: String] = [:]
    package private(set) var flags: Set<String> = []
    package private(set) var positionals: [String] = []

    /// Reads `arguments` with the options that take a value (`valued`) and the flags (`flags`),
    /// names without their dashes.
    package init?(_ arguments: [String], valued: Set<String>, flags knownFlags: Set<String>) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                positionals.append(argument)
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else { return nil }
            let body = argument.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                let name = String(body[..<equals])
                guard valued.contains(name), values[name] == nil else { return nil }
                values[name] = String(body[body.index(after: equals)...])
            } else if valued.contains(String(body)) {
                guard index < arguments.count, !arguments[index].hasPrefix("-"), values[String(body)] == nil else { return nil }
                values[String(body)] = arguments[index]
                index += 1
            } else {
                guard knownFlags.contains(String(body)), !flags.contains(String(body)) else { return nil }
                flags.insert(String(body))
            }
        }
    }
}
