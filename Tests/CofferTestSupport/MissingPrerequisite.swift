import Foundation
import XCTest

/// What a test throws when a tool or package it needs is missing: a skip that says why, or,
/// where the run must not skip (`COFFER_STRICT_TESTS=1`, as `make test` sets), a failure.
public struct MissingPrerequisite: Error, CustomStringConvertible {
    public let description: String

    /// The error for `reason`: an `XCTSkip` normally, a failure in a strict run.
    public static func error(_ reason: String) -> any Error {
        guard ProcessInfo.processInfo.environment["COFFER_STRICT_TESTS"] == "1" else { return XCTSkip(reason) }
        return MissingPrerequisite(description: reason + " (COFFER_STRICT_TESTS=1)")
    }
}
