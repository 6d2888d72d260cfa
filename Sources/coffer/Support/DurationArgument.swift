import ArgumentParser

/// A duration on the command line: seconds, or a number with `s`, `m`, `h` or `d` (`90`, `15m`, `8h`).
struct DurationArgument: ExpressibleByArgument, Sendable {
    let seconds: Int

    init?(argument: String) {
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

    var duration: Duration { .seconds(seconds) }
}
