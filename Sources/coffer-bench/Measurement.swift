import Foundation

/// Timing helpers: medians of many single-operation timings.
enum Measurement {
    /// Times `subject` and `floor` alternately, `count` times each after `warmup` untimed
    /// rounds, so both see the same disk and cache conditions. Returns both medians in µs.
    static func interleavedMedians(
        count: Int, warmup: Int, subject: (Int) throws -> Void, floor: (Int) throws -> Void
    ) rethrows -> (subject: Double, floor: Double) {
        for index in 0..<warmup {
            try subject(index)
            try floor(index)
        }
        let clock = ContinuousClock()
        var subjectSamples: [Double] = [], floorSamples: [Double] = []
        for index in warmup..<(warmup + count) {
            subjectSamples.append(microseconds(try clock.measure { try subject(index) }))
            floorSamples.append(microseconds(try clock.measure { try floor(index) }))
        }
        return (median(subjectSamples), median(floorSamples))
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
