/// The interpreters whose identity includes what they run (docs/security.md, "Which program is
/// calling"), and how each one's command line names its script. The command line is the
/// process's own to write, so this reading tells honest programs apart; it is no barrier
/// against a program that lies.
enum Interpreter: Equatable {
    case python, node, perl, ruby, java
    /// A POSIX-style shell (`sh`, `bash`, `dash`, `zsh`), or `fish`, whose options differ.
    case shell(fish: Bool)

    /// What an interpreter's command line says it runs.
    enum Script: Equatable {
        /// No script: a command given inline (`-c`, `-e`), standard input, or an interactive
        /// session. The identity is the interpreter alone.
        case none
        /// A script file, as the command line names it (relative to the process's folder, or absolute).
        case file([UInt8])
        /// A module or class the interpreter finds itself: `module:NAME` or `class:NAME`.
        case named([UInt8])
    }

    /// The interpreter an executable's file name is: `python*` (so `python3.11`), `node`,
    /// `nodejs`, `perl*`, `ruby*`, `sh`, `bash`, `dash`, `zsh`, `fish`, `java`.
    init?(executableName name: some Collection<UInt8>) {
        let name = String(decoding: name, as: UTF8.self)
        switch name {
        case _ where name.hasPrefix("python"): self = .python
        case "node", "nodejs": self = .node
        case _ where name.hasPrefix("perl"): self = .perl
        case _ where name.hasPrefix("ruby"): self = .ruby
        case "sh", "bash", "dash", "zsh": self = .shell(fish: false)
        case "fish": self = .shell(fish: true)
        case "java": self = .java
        default: return nil
        }
    }

    /// The script in `arguments` (the command line after argv[0]): the first argument that is
    /// not an option or an option's value.
    func script(in arguments: ArraySlice<[UInt8]>) -> Script {
        var reader = OptionReader(arguments)
        switch self {
        case .python: return reader.python()
        case .node: return reader.node()
        case .perl: return reader.perl()
        case .ruby: return reader.ruby()
        case .java: return reader.java()
        case .shell(let fish): return fish ? reader.fish() : reader.shell()
        }
    }
}

/// Walks a command line's options, one interpreter's grammar at a time. Arguments are bytes
/// (a script's path need not be UTF-8); options are compared as ASCII.
private struct OptionReader {
    private var arguments: ArraySlice<[UInt8]>
    /// The argument ``next()`` read last, as bytes.
    private var current: [UInt8] = []

    init(_ arguments: ArraySlice<[UInt8]>) {
        self.arguments = arguments
    }

    /// The next argument as text, for comparing with option names (a byte that is not UTF-8
    /// becomes U+FFFD, which no option name holds); its bytes are then ``current``.
    private mutating func next() -> String? {
        guard let argument = arguments.popFirst() else { return nil }
        current = argument
        return String(decoding: argument, as: UTF8.self)
    }

    private mutating func skip(_ count: Int = 1) { arguments = arguments.dropFirst(count) }

    /// The argument after `--`, or else the one just read (not an option): the script.
    private mutating func file(after argument: String) -> Interpreter.Script {
        guard argument == "--" else { return .file(current) }
        return arguments.popFirst().map(Interpreter.Script.file) ?? .none
    }

    /// The next argument, or else nothing, as `KIND:NAME`.
    private mutating func namedNext(_ kind: String) -> Interpreter.Script {
        Self.named(kind, arguments.popFirst() ?? [])
    }

    private static func named(_ kind: String, _ name: some Collection<UInt8>) -> Interpreter.Script {
        name.isEmpty ? .none : .named(Array(kind.utf8) + [UInt8(ascii: ":")] + Array(name))
    }

    /// The letters of a cluster of short options (`-uBc`, the `-` or `+` dropped) in turn:
    /// `body` gets each letter and the rest of the cluster after it, and says whether the
    /// cluster goes on.
    private func cluster(_ body: (Character, ArraySlice<UInt8>) -> Bool) {
        var rest = current.dropFirst()
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard body(Character(Unicode.Scalar(letter)), rest) else { return }
        }
    }

    /// CPython: `-c` runs a command, `-m NAME` a module (`module:NAME`); `-W` and `-X` take a
    /// value; `-` is standard input.
    mutating func python() -> Interpreter.Script {
        while let argument = next() {
            if argument == "-" { return .none }
            if argument == "--" || !argument.hasPrefix("-") { return file(after: argument) }
            if argument.hasPrefix("--") {
                if argument == "--check-hash-based-pycs" { skip() }
                continue
            }
            var result: Interpreter.Script?
            var takesNext = false, module = false
            cluster { letter, rest in
                switch letter {
                case "c":
                    result = Interpreter.Script.none
                case "m":
                    module = true
                    takesNext = rest.isEmpty
                    if !rest.isEmpty { result = Self.named("module", rest) }
                case "W", "X":
                    takesNext = rest.isEmpty
                default:
                    return true
                }
                return false
            }
            if let result { return result }
            if module { return namedNext("module") }
            if takesNext { skip() }
        }
        return .none
    }

    /// Node.js: `-e`/`--eval` and `-p`/`--print` run code; a few options take the next
    /// argument as their value (the others are written `--name=value`).
    mutating func node() -> Interpreter.Script {
        let code: Set = ["-e", "--eval", "-p", "--print", "-pe", "-ep"]
        let valued: Set = [
            "-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--title",
            "--input-type", "--env-file", "--env-file-if-exists", "--watch-path", "--disable-warning", "--redirect-warnings",
            "--report-dir", "--report-directory", "--report-filename", "--diagnostic-dir", "--icu-data-dir", "--openssl-config",
            "--inspect-port", "--debug-port", "--secure-heap", "--secure-heap-min", "--stack-trace-limit",
        ]
        while let argument = next() {
            if argument == "-" { return .none }
            if argument == "--" || !argument.hasPrefix("-") { return file(after: argument) }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if code.contains(name) { return .none }
            if valued.contains(argument) { skip() }
        }
        return .none
    }

    /// Perl: `-e`/`-E` run code; `-I` takes a value, here or as the next argument; `-l` takes
    /// octal digits and `-0` octal digits or `xHEX`, and the cluster goes on; `-C`, `-d`, `-D`,
    /// `-F`, `-i`, `-m`, `-M`, `-V` and `-x` take the rest of the cluster.
    mutating func perl() -> Interpreter.Script {
        let octal = Set("01234567"), hex = Set("0123456789abcdefABCDEF")
        while let argument = next() {
            if argument == "-" { return .none }
            if argument == "--" || !argument.hasPrefix("-") { return file(after: argument) }
            var code = false, takesNext = false
            var digits: Set<Character> = [], afterZero = false
            cluster { letter, rest in
                if afterZero, letter == "x" || letter == "X" {
                    afterZero = false
                    digits = hex
                    return true
                }
                afterZero = false
                if digits.contains(letter) { return true }
                digits = []
                switch letter {
                case "e", "E": code = true
                case "I": takesNext = rest.isEmpty
                case "0", "l":
                    afterZero = letter == "0"
                    digits = octal
                    return true
                case "C", "d", "D", "F", "i", "m", "M", "V", "x": break
                default: return true
                }
                return false
            }
            if code { return .none }
            if takesNext { skip() }
        }
        return .none
    }

    /// Ruby: `-e` runs code; `-I`, `-r`, `-C` and `-E` take a value, here or as the next
    /// argument; `-0`, `-F`, `-K`, `-T`, `-W` and `-x` take the rest of the cluster.
    mutating func ruby() -> Interpreter.Script {
        let valuedLong: Set = ["--encoding", "--external-encoding", "--internal-encoding"]
        while let argument = next() {
            if argument == "-" { return .none }
            if argument == "--" || !argument.hasPrefix("-") { return file(after: argument) }
            if argument.hasPrefix("--") {
                if valuedLong.contains(argument) { skip() }
                continue
            }
            var code = false, takesNext = false
            cluster { letter, rest in
                switch letter {
                case "e": code = true
                case "I", "r", "C", "E": takesNext = rest.isEmpty
                case "0", "F", "K", "T", "W", "x": break
                default: return true
                }
                return false
            }
            if code { return .none }
            if takesNext { skip() }
        }
        return .none
    }

    /// Java: `-jar FILE` runs a jar, `-m`/`--module NAME` a module (`module:NAME`), a `.java`
    /// file a source program, and any other first argument names a class (`class:NAME`);
    /// `@files` (argument files, unread) are skipped.
    mutating func java() -> Interpreter.Script {
        let valued: Set = [
            "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
            "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module", "--source",
            "--describe-module", "-d",
        ]
        while let argument = next() {
            if argument == "-jar" { return arguments.popFirst().map(Interpreter.Script.file) ?? .none }
            if argument == "-m" || argument == "--module" { return namedNext("module") }
            if argument.hasPrefix("--module=") { return Self.named("module", current.dropFirst("--module=".utf8.count)) }
            if valued.contains(argument) {
                skip()
                continue
            }
            if argument.hasPrefix("-") || argument.hasPrefix("@") { continue }
            return argument.hasSuffix(".java") ? .file(current) : Self.named("class", current)
        }
        return .none
    }

    /// `sh`, `bash`, `dash`, `zsh`: `-c` runs a command and `-s` reads standard input (in any
    /// cluster, with `-` or `+`); `-o`/`-O` take the next argument, as do bash's `--rcfile` and
    /// `--init-file`; `-` and `--` end the options.
    mutating func shell() -> Interpreter.Script {
        while let argument = next() {
            if argument == "-" || argument == "--" { return arguments.popFirst().map(Interpreter.Script.file) ?? .none }
            if argument.hasPrefix("--") {
                if argument == "--rcfile" || argument == "--init-file" { skip() }
                continue
            }
            guard argument.hasPrefix("-") || argument.hasPrefix("+") else { return .file(current) }
            var inline = false, values = 0
            cluster { letter, _ in
                switch letter {
                case "c", "s": inline = true
                case "o", "O": values += 1
                default: break
                }
                return true
            }
            if inline { return .none }
            skip(values)
        }
        return .none
    }

    /// fish: `-c`/`--command` run a command; `-C`/`--init-command`, `-d`/`--debug`,
    /// `-o`/`--debug-output`, `-f`/`--features` and `-p`/`--profile` take a value.
    mutating func fish() -> Interpreter.Script {
        let valuedLong: Set = ["--init-command", "--debug", "--debug-output", "--features", "--profile", "--profile-startup"]
        while let argument = next() {
            if argument == "-" { return .none }
            if argument == "--" || !argument.hasPrefix("-") { return file(after: argument) }
            if argument.hasPrefix("--") {
                if argument == "--command" || argument.hasPrefix("--command=") { return .none }
                if valuedLong.contains(argument) { skip() }
                continue
            }
            var inline = false, takesNext = false
            cluster { letter, rest in
                switch letter {
                case "c": inline = true
                case "C", "d", "o", "f", "p": takesNext = rest.isEmpty
                default: return true
                }
                return false
            }
            if inline { return .none }
            if takesNext { skip() }
        }
        return .none
    }
}
