/// A strict reading of a command line for a thin front program: the options it knows, each
/// once, in either form (`--name value` with a value not starting with `-`, `--name=value`), and positional arguments. Anything
/// else (an unknown option, a repeated one, `--`, a missing value) makes it `nil`, and the full
/// program reads the command line instead.
///
/// Arrays of `String` only, no `Set` or `Dictionary`: a thin program's start-up pays for every
/// generic type it instantiates at run time (docs/performance.md, "The thin credential helpers").
package struct ThinArguments {
    /// The names of the options given with a value, and their values at the same index.
    package private(set) var valueNames: [String] = []
    private var givenValues: [String] = []
    package private(set) var flags: [String] = []
    package private(set) var positionals: [String] = []

    /// Reads `arguments` with the options that take a value (`valued`) and the flags (`flags`),
    /// names without their dashes.
    package init?(_ arguments: [String], valued: [String], flags knownFlags: [String]) {
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
                guard valued.contains(name), value(name) == nil else { return nil }
                valueNames.append(name)
                givenValues.append(String(body[body.index(after: equals)...]))
            } else if valued.contains(String(body)) {
                guard index < arguments.count, !arguments[index].hasPrefix("-"), value(String(body)) == nil else { return nil }
                valueNames.append(String(body))
                givenValues.append(arguments[index])
                index += 1
            } else {
                guard knownFlags.contains(String(body)), !flags.contains(String(body)) else { return nil }
                flags.append(String(body))
            }
        }
    }

    /// The value given for the option `name`, or `nil` when it was not given.
    package func value(_ name: String) -> String? {
        valueNames.firstIndex(of: name).map { givenValues[$0] }
    }
}
