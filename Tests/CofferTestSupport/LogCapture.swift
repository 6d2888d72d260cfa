import Logging
import Synchronization

/// Collects every log line (message and metadata) a logger writes, for tests that check no
/// secret is ever logged.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at `level` that writes here.
    public func logger(label: String = "coffer.tests.capture", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// Everything logged so far, one line per entry.
    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    /// How many entries were logged.
    public var count: Int { lines.withLock { $0.count } }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
        }
    }
}
