import ArgumentParser

/// A duration on the command line: seconds, or a number with `s`, `m`, `h` or `d` (`90`, `15m`, `8h`).
package struct DurationArgument: ExpressibleByArgument, Sendable {
    package let seconds: Int

    package init?(argument: String) {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var text = Substring(argument)
        var unit = 1
        if let last = text.last, let multiplier = units[last] {
            unit = multiplier
            text = text.dropLast()
        }
        guard let value = Int(text), value > 0, value <= Int(Int32.max) / unit else { return nil }
        seconds = value * unit
    }

    package var duration: Duration { .seconds(seconds) }

    /// How help shows a default: in the largest unit it is a whole number of (`1h`, `90s`).
    package var defaultValueDescription: String {
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds % size == 0 { return "\(seconds / size)\(unit)" }
        return "\(seconds)s"
    }
}
