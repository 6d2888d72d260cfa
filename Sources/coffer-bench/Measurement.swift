import Foundation

/// Timing helpers: medians of many single-operation timings.
enum Measurement {
    /// Times `operations` in turn, round after round: `count` timed rounds after `warmup`
    /// untimed ones, so every operation sees the same disk and cache conditions. Each
    /// operation gets the round's index. Returns each operation's median, in µs.
    static func interleavedMedians(
        count: Int, warmup: Int, _ operations: [(Int) throws -> Void]
    ) throws -> [Double] {
        for index in 0..<warmup {
            for operation in operations { try operation(index) }
        }
        let clock = ContinuousClock()
        var samples = Array(repeating: [Double](), count: operations.count)
        for index in warmup..<(warmup + count) {
            for (slot, operation) in operations.enumerated() {
                samples[slot].append(microseconds(try clock.measure { try operation(index) }))
            }
        }
        return samples.map(median)
    }

    static func median(_ samples: [Double]) -> Double {
        samples.sorted()[samples.count / 2]
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    static func format(_ microseconds: Double) -> String {
        microseconds >= 1000 ? String(format: "%.2f ms", microseconds / 1000) : String(format: "%.1f µs", microseconds)
    }

    static func ratio(_ value: Double, _ floor: Double) -> String {
        String(format: "%.2f×", value / floor)
    }

    /// A private temporary folder, removed by `body`'s end.
    static func withTemporaryFolder<R>(_ body: (URL) throws -> R) throws -> R {
        var template = Array((NSTemporaryDirectory() + "/coffer-bench-XXXXXX").utf8CString)
        guard let path = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let url = URL(fileURLWithPath: String(cString: path))
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }
}
