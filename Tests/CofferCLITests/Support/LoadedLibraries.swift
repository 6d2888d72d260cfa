import CofferTestSupport
import Foundation

/// What the dynamic loader says a run loaded (`LD_DEBUG=libs` prints `calling init: PATH` on
/// stderr for each library, at start and at `dlopen`), and which of those are the libraries the
/// thin front programs must not load when the agent answers (issue 29).
enum LoadedLibraries {
    /// The environment that makes the loader report.
    static let tracing: [String: String?] = ["LD_DEBUG": "libs"]

    /// The file names of every library the run initialised.
    static func names(in output: ChildProcess.Output) -> [String] {
        output.stderrText.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return URL(fileURLWithPath: String(line[range.upperBound...])).lastPathComponent
        }
    }

    /// Foundation (every part), glib, gobject, gio, libsecret, libgcrypt and the full programs'
    /// library, by file name.
    static func isHeavy(_ name: String) -> Bool {
        ["libFoundation", "lib_Foundation", "libglib-2.0", "libgobject-2.0", "libgio-2.0", "libsecret-1", "libgcrypt", "libCofferCommands"]
            .contains { name.hasPrefix($0) }
    }

    /// The heavy libraries the run loaded.
    static func heavy(in output: ChildProcess.Output) -> [String] {
        names(in: output).filter(isHeavy)
    }

    /// stderr without the loader's lines (`   PID:\t…`), so that a command's own message can be compared.
    static func stderrWithoutTracing(_ output: ChildProcess.Output) -> String {
        output.stderrText.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { line in
                let trimmed = line.drop { $0 == " " }
                let pid = trimmed.prefix { $0.isNumber }
                return pid.isEmpty || !trimmed.dropFirst(pid.count).hasPrefix(":\t")
            }
            .joined(separator: "\n")
    }
}
