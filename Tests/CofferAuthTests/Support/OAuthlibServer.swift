import CofferTestSupport
import Foundation

/// oauthlib's reference OAuth 2.0 `Server` (Tests/CofferAuthTests/Fixtures/oauthlib_server.py),
/// run by Python on 127.0.0.1: a peer independent of Coffer.
struct OAuthlibServer {
    static let client = (id: "interop-client", secret: "interop secret/+&=")
    static let user = (name: "alice", password: "alice-password")

    let process: ChildProcess
    let baseURL: URL

    /// Starts the server with `arguments` (`--refresh`, `--expires-in N`); throws
    /// ``MissingPrerequisite`` when no Python has oauthlib.
    init(arguments: [String] = []) throws {
        guard let python = Self.pythonWithOAuthlib() else {
            throw MissingPrerequisite.error("python3 with oauthlib is missing: run scripts/bootstrap.sh test")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/oauthlib_server.py")
        process = try ChildProcess.start(python, [script.path] + arguments, inputs: [0: nil])
        let port = try process.firstLine(timeout: .seconds(20))
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// A Python 3 that has oauthlib (`scripts/bootstrap.sh test` installs Debian's python3-oauthlib).
    static func pythonWithOAuthlib() -> String? {
        for python in ["/usr/bin/python3", "python3"] {
            if let output = try? ChildProcess.run(python, ["-c", "import oauthlib"], timeout: .seconds(20)), output.status == 0 {
                return python
            }
        }
        return nil
    }

    func stop() {
        _ = process.stop()
    }
}
