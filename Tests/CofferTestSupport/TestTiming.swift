import Foundation

/// Upper bounds on how long something may take, stretched under a sanitizer: scripts/sanitize.sh
/// sets `COFFER_TEST_TIME_SCALE`, since every sanitized process starts and runs several times
/// slower. The normal suite keeps its bounds.
public enum TestTiming {
    public static let scale = ProcessInfo.processInfo.environment["COFFER_TEST_TIME_SCALE"].flatMap(Int.init).map { max($0, 1) } ?? 1

    /// `milliseconds`, times the scale.
    public static func limit(milliseconds: Int) -> Int {
        milliseconds * scale
    }

    /// The sanitizer the suite runs under (`thread`, `address`), when scripts/sanitize.sh runs it.
    public static let sanitizer = ProcessInfo.processInfo.environment["COFFER_SANITIZER"]
}
