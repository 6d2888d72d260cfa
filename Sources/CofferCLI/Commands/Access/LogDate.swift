import ArgumentParser
import Foundation

/// A time on the command line: an ISO 8601 date (midnight UTC), or a date and time with an
/// offset or `Z`, with or without fractional seconds.
struct LogDate: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let dayOnly = ISO8601DateFormatter()
        dayOnly.formatOptions = [.withFullDate]
        guard let date = ISO8601DateFormatter().date(from: argument) ?? withFraction.date(from: argument) ?? dayOnly.date(from: argument)
        else { return nil }
        self.date = date
    }
}
