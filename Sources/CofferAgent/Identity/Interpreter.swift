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

    /// What one option says.
    private enum Step {
        /// A flag: the cluster goes on to its next letter.
        case next
        /// A flag whose value is the next `count` letters of the cluster, which goes on after them.
        case nextAfter(Int)
        /// The option ends its cluster (what follows in it, if anything, is its value).
        case end
        /// The option takes a value: the rest of its cluster, or else the next argument.
        case value
        /// Inline code or standard input: no script.
        case inline
        /// The option names what runs.
        case runs(Interpreter.Script)
        /// The option names, as `KIND:NAME`, what runs: the rest of its cluster, or else the
        /// next argument.
        case runsNamed(String)
    }

    /// The next argument as text, for comparing with option names (a byte that is not UTF-8
    /// becomes U+FFFD, which no option name holds); its bytes are then ``current``.
    private mutating func next() -> String? {
        guard let argument = arguments.popFirst() else { return nil }
        current = argument
        return String(decoding: argument, as: UTF8.self)
    }

    private static func named(_ kind: String, _ name: some Collection<UInt8>) -> Interpreter.Script {
        name.isEmpty ? .none : .named(Array(kind.utf8) + [UInt8(ascii: ":")] + Array(name))
    }

    /// The grammar the interpreters share: options come first; `--` ends them, and the next
    /// argument is the script; so is the first argument that is no option. `-` alone is
    /// standard input, or with `dashEnds`, ends the options as `--` does. An argument of two
    /// dashes goes to `long`; one of a single dash (or `+` with `plus`) is a cluster of letters,
    /// each given to `short` with the rest of the cluster, or the whole of it goes to `long`
    /// when `clusters` is `false`.
    private mutating func read(
        dashEnds: Bool = false, plus: Bool = false, clusters: Bool = true,
        long: (String) -> Step, short: (Character, ArraySlice<UInt8>) -> Step = { _, _ in .end }
    ) -> Interpreter.Script {
        while let argument = next() {
            if argument == "-", !dashEnds { return .none }
            if argument == "--" || argument == "-" { return arguments.popFirst().map(Interpreter.Script.file) ?? .none }
            guard argument.hasPrefix("-") || plus && argument.hasPrefix("+") else { return .file(current) }
            var step = Step.end, rest = current.dropFirst()
            if argument.hasPrefix("--") || !clusters {
                step = long(argument)
                rest = []
            } else {
                letters: while let letter = rest.first {
                    rest = rest.dropFirst()
                    step = short(Character(Unicode.Scalar(letter)), rest)
                    switch step {
                    case .next: continue
                    case .nextAfter(let count): rest = rest.dropFirst(count)
                    default: break letters
                    }
                }
            }
            switch step {
            case .next, .nextAfter, .end: continue
            case .value: if rest.isEmpty { arguments = arguments.dropFirst() }
            case .inline: return .none
            case .runs(let script): return script
            case .runsNamed(let kind): return Self.named(kind, rest.isEmpty ? arguments.popFirst() ?? [] : Array(rest))
            }
        }
        return .none
    }

    /// CPython: `-c` runs a command, `-m NAME` a module (`module:NAME`); `-W` and `-X` take a
    /// value.
    mutating func python() -> Interpreter.Script {
        read(long: { $0 == "--check-hash-based-pycs" ? .value : .end }) { letter, _ in
            switch letter {
            case "c": .inline
            case "m": .runsNamed("module")
            case "W", "X": .value
            default: .next
            }
        }
    }

    /// Node.js: `-e`/`--eval` and `-p`/`--print` run code; a few options take the next
    /// argument as their value (the others are written `--name=value`). No clusters.
    mutating func node() -> Interpreter.Script {
        let code: Set = ["-e", "--eval", "-p", "--print", "-pe", "-ep"]
        let valued: Set = [
            "-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--title",
            "--input-type", "--env-file", "--env-file-if-exists", "--watch-path", "--disable-warning", "--redirect-warnings",
            "--report-dir", "--report-directory", "--report-filename", "--diagnostic-dir", "--icu-data-dir", "--openssl-config",
            "--inspect-port", "--debug-port", "--secure-heap", "--secure-heap-min", "--stack-trace-limit",
        ]
        return read(clusters: false, long: { argument in
            if code.contains(argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument) { return .inline }
            return valued.contains(argument) ? .value : .end
        })
    }

    /// Perl: `-e`/`-E` run code; `-I` takes a value; `-l` takes octal digits and `-0` octal
    /// digits or `xHEX`, and the cluster goes on; `-C`, `-d`, `-D`, `-F`, `-i`, `-m`, `-M`, `-V`
    /// and `-x` take the rest of the cluster.
    mutating func perl() -> Interpreter.Script {
        func count(_ rest: ArraySlice<UInt8>, _ digits: String) -> Int {
            rest.prefix { digits.utf8.contains($0) }.count
        }
        return read(long: { _ in .end }) { letter, rest in
            switch letter {
            case "e", "E": return .inline
            case "I": return .value
            case "0" where rest.first == UInt8(ascii: "x") || rest.first == UInt8(ascii: "X"):
                return .nextAfter(1 + count(rest.dropFirst(), "0123456789abcdefABCDEF"))
            case "0", "l": return .nextAfter(count(rest, "01234567"))
            case "C", "d", "D", "F", "i", "m", "M", "V", "x": return .end
            default: return .next
            }
        }
    }

    /// Ruby: `-e` runs code; `-I`, `-r`, `-C` and `-E` take a value; `-0`, `-F`, `-K`, `-T`,
    /// `-W` and `-x` take the rest of the cluster.
    mutating func ruby() -> Interpreter.Script {
        read(long: { ["--encoding", "--external-encoding", "--internal-encoding"].contains($0) ? .value : .end }) { letter, _ in
            switch letter {
            case "e": .inline
            case "I", "r", "C", "E": .value
            case "0", "F", "K", "T", "W", "x": .end
            default: .next
            }
        }
    }

    /// `sh`, `bash`, `dash`, `zsh`: `-c` runs a command and `-s` reads standard input (in any
    /// cluster, with `-` or `+`); `-o`/`-O` take the next argument, as do bash's `--rcfile` and
    /// `--init-file`; `-` ends the options as `--` does.
    mutating func shell() -> Interpreter.Script {
        read(dashEnds: true, plus: true, long: { $0 == "--rcfile" || $0 == "--init-file" ? .value : .end }) { letter, _ in
            switch letter {
            case "c", "s": .inline
            case "o", "O": .value
            default: .next
            }
        }
    }

    /// fish: `-c`/`--command` run a command; `-C`/`--init-command`, `-d`/`--debug`,
    /// `-o`/`--debug-output`, `-f`/`--features` and `-p`/`--profile` take a value.
    mutating func fish() -> Interpreter.Script {
        let valued: Set = ["--init-command", "--debug", "--debug-output", "--features", "--profile", "--profile-startup"]
        return read(long: { argument in
            if argument == "--command" || argument.hasPrefix("--command=") { return .inline }
            return valued.contains(argument) ? .value : .end
        }) { letter, _ in
            switch letter {
            case "c": .inline
            case "C", "d", "o", "f", "p": .value
            default: .next
            }
        }
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
            if argument == "-m" || argument == "--module" { return Self.named("module", arguments.popFirst() ?? []) }
            if argument.hasPrefix("--module=") { return Self.named("module", current.dropFirst("--module=".utf8.count)) }
            if valued.contains(argument) {
                arguments = arguments.dropFirst()
                continue
            }
            if argument.hasPrefix("-") || argument.hasPrefix("@") { continue }
            return argument.hasSuffix(".java") ? .file(current) : Self.named("class", current)
        }
        return .none
    }
}
