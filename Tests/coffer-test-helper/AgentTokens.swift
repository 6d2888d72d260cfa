import Coffer
import CofferAgentWire
import Foundation
import Glibc

/// Token requests to the agent's broker, as a program other than `coffer` makes them:
///   agent-tokens SOCKET VAULT PROFILE COUNT [REFUSED]
///                                             COUNT requests at once, each on a connection of
///                                             its own; prints one line per reply: `token VALUE`,
///                                             `failure DESCRIPTION` or `denied`, then a tab and
///                                             the reply's frame as read (base64); REFUSED: a
///                                             token the requests say a resource refused
/// Exit status 0 when every request got a token, 13 when one was refused access, 1 otherwise.
///   agent-keep-login SOCKET VAULT PROFILE     a `keep login` of PROFILE, the login's bytes read
///                                             from stdin; prints `done`, `denied` or `failure …`
///                                             (exit status 0, 13, 1)
enum AgentTokens {
    static func run(_ arguments: [String]) -> Int32? {
        if arguments.first == "agent-keep-login" {
            guard arguments.count == 4 else { return 1 }
            let login = SecureBytes(copying: FileHandle.standardInput.readDataToEndOfFile())
            let line = exchange(.keepLogin(vault: arguments[2], profile: arguments[3], login: login), socket: arguments[1])
            print(line.text)
            return line.text.hasPrefix("done") ? 0 : line.text.hasPrefix("denied") ? 13 : 1
        }
        guard arguments.first == "agent-tokens" else { return nil }
        guard arguments.count == 5 || arguments.count == 6, let count = Int(arguments[4]), count > 0 else { return 1 }
        let request = AgentRequest.token(vault: arguments[2], profile: arguments[3], refused: arguments.count == 6 ? arguments[5] : nil)
        let lines = Lines()
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            Thread.detachNewThread {
                lines.append(exchange(request, socket: arguments[1]))
                group.leave()
            }
        }
        group.wait()
        let all = lines.all
        print(all.map(\.text).joined(separator: "\n"))
        if all.allSatisfy({ $0.text.hasPrefix("token ") }) { return 0 }
        return all.contains { $0.text.hasPrefix("denied") } ? 13 : 1
    }

    /// One request on a connection of its own; the line that reports its reply.
    private static func exchange(_ request: AgentRequest, socket: String) -> Line {
        let descriptor: Int32
        do { descriptor = try AgentSocket.connect(path: socket, timeout: .seconds(30)) } catch { return Line(text: "failure \(error)") }
        defer { close(descriptor) }
        guard AgentSocket.write(request.message, to: descriptor), let message = AgentSocket.read(from: descriptor) else {
            return Line(text: "failure no reply")
        }
        let raw = Data(message.frame).base64EncodedString()
        switch try? AgentReply(message, to: request) {
        case .token(let token)?: return Line(text: "token \(token.value)\t\(raw)")
        case .done?: return Line(text: "done\t\(raw)")
        case .failure(.accessDenied)?: return Line(text: "denied\t\(raw)")
        case let reply?: return Line(text: "failure \(reply)\t\(raw)")
        case nil: return Line(text: "failure malformed reply\t\(raw)")
        }
    }

    private struct Line: Sendable {
        let text: String
    }

    /// The replies' lines, from the requests' threads. An NSLock, not a Mutex: ThreadSanitizer
    /// reported a Swift access race on the Mutex's value here (its futex is not a lock it sees).
    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [Line] = []
        func append(_ line: Line) { lock.withLock { lines.append(line) } }
        var all: [Line] { lock.withLock { lines } }
    }
}
